/**
 * An action drawn on its screenshot: SVG marks in logical screen pixels (a ring where it clicked, an
 * arrow along a drag or a scroll) and an HTML caption for what has no place (typed text, key chords).
 */
import type { ActionStatus, RunAction, Size } from '@mime-desktop/schema';
import { formatCount } from './format.ts';
import { type Html, html } from './html.ts';

type Point = { x: number; y: number };

const STATUS_LABELS: Record<Exclude<ActionStatus, 'executed'>, string> = {
  dry_run: 'dry run: not executed',
  skipped: 'skipped',
  failed: 'failed',
  refused: 'refused: outside the app',
};

const round = (value: number) => Math.round(value * 10) / 10;
const at = (p: Point) => `(${formatCount(p.x)}, ${formatCount(p.y)})`;

function ring(p: Point, r: number, dashed = false): Html {
  const dash = dashed ? 'mark-dashed' : '';
  return html`<circle class="mark-halo" cx="${p.x}" cy="${p.y}" r="${round(r)}"/><circle class="mark-ring ${dash}" cx="${p.x}" cy="${p.y}" r="${round(r)}"/>`;
}

function dot(p: Point, r: number): Html {
  return html`<circle class="mark-dot" cx="${p.x}" cy="${p.y}" r="${round(r)}"/>`;
}

/** A line from `from` to `to` with a filled head at `to`, `size` long. */
function arrow(from: Point, to: Point, size: number): Html {
  const angle = Math.atan2(to.y - from.y, to.x - from.x);
  const corner = (turn: number) => {
    const a = angle + Math.PI - turn;
    return `${round(to.x + size * Math.cos(a))},${round(to.y + size * Math.sin(a))}`;
  };
  const base = { x: to.x - size * 0.8 * Math.cos(angle), y: to.y - size * 0.8 * Math.sin(angle) };
  const line = `M${round(from.x)},${round(from.y)} L${round(base.x)},${round(base.y)}`;
  const head = `${round(to.x)},${round(to.y)} ${corner(0.45)} ${corner(-0.45)}`;
  return html`<path class="mark-halo" d="${line}"/><path class="mark-line" d="${line}"/><polygon class="mark-head" points="${head}"/>`;
}

const SCROLL_VECTORS: Record<string, Point> = {
  up: { x: 0, y: -1 },
  down: { x: 0, y: 1 },
  left: { x: -1, y: 0 },
  right: { x: 1, y: 0 },
};

/** The SVG marks of an action, in the coordinates of `screen` (nothing for typing, keys and waits). */
export function drawAction(action: RunAction, screen: Size): Html | null {
  const r = Math.max(8, screen.width * 0.022);
  switch (action.action) {
    case 'left_click':
    case 'right_click':
    case 'middle_click':
      return html`${ring(action.point, r)}${dot(action.point, r * 0.18)}`;
    case 'double_click':
      return html`${ring(action.point, r)}${ring(action.point, r * 0.6)}${dot(action.point, r * 0.18)}`;
    case 'mouse_move':
      return ring(action.point, r * 0.7, true);
    case 'left_click_drag':
      return html`${dot(action.point, r * 0.35)}${arrow(action.point, action.endPoint, r * 0.9)}`;
    case 'scroll': {
      const direction = SCROLL_VECTORS[action.direction];
      if (!action.point || !direction) return null;
      const { point } = action;
      const to = { x: point.x + direction.x * r * 3, y: point.y + direction.y * r * 3 };
      return html`${ring(point, r * 0.7, true)}${arrow(point, to, r * 0.8)}`;
    }
    default:
      return null;
  }
}

function keyChord(keys: string): Html {
  const parts = keys.split('+').filter((key) => key !== '');
  return html`<span class="chord">${parts.map((key, i) => html`${i > 0 && '+'}<kbd>${key}</kbd>`)}</span>`;
}

/** The words of an action, with its text or key chord set apart. */
export function describeActionHtml(action: RunAction): Html {
  switch (action.action) {
    case 'left_click':
      return html`click at ${at(action.point)}`;
    case 'double_click':
      return html`double-click at ${at(action.point)}`;
    case 'right_click':
      return html`right-click at ${at(action.point)}`;
    case 'middle_click':
      return html`middle-click at ${at(action.point)}`;
    case 'mouse_move':
      return html`move the pointer to ${at(action.point)}`;
    case 'left_click_drag':
      return html`drag ${at(action.point)} → ${at(action.endPoint)}`;
    case 'type':
      return html`type <q class="typed">${action.text}</q>`;
    case 'key':
      return html`press ${keyChord(action.keys)}`;
    case 'scroll':
      return html`scroll ${action.direction} ×${action.amount}${action.point && html` at ${at(action.point)}`}`;
    case 'wait':
      return html`wait ${action.seconds} s`;
  }
}

/** The caption on a screenshot: what was done, and whether it was not executed. */
export function captionAction(action: RunAction, status: ActionStatus): Html {
  const note =
    status === 'executed' ? null : html`<span class="badge badge-${status}">${STATUS_LABELS[status]}</span>`;
  return html`<span class="cap-text">${describeActionHtml(action)}</span>${note}`;
}
