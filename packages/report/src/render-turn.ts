/** A turn of a subtask in the timeline. */

import type { RunEventData, Size, Workflow } from '@mime-desktop/schema';
import { formatStep, formatSubtask } from '@mime-desktop/schema';
import type { Turn } from './build-timeline.ts';
import type { EmbeddedImage } from './embed-images.ts';
import { formatDuration, formatOffset } from './format.ts';
import { type Html, html } from './html.ts';
import { captionAction, describeActionHtml, drawAction } from './render-action.ts';
import { renderCallout, renderUnreadable } from './render-callout.ts';
import { renderDivergence } from './render-divergence.ts';
import { renderPair, renderShot, type ShotOptions } from './render-shot.ts';
import { renderModelUsage } from './render-usage.ts';
import { renderVerified } from './render-verified.ts';

/** What rendering the timeline needs besides its blocks. */
export interface TimelineContext {
  images: ReadonlyMap<string, EmbeddedImage>;
  /** The recording's frames, by their path in the workflow folder (empty when the run is not in one). */
  recorded: ReadonlyMap<string, EmbeddedImage>;
  /** The recorded frame each reference step was made from, by step index. */
  recordedFrames: ReadonlyMap<number, string>;
  /** What stopped the run, as the header shows it: the timeline only points at it. */
  stopped: { code: string; reason: string | null } | null;
  /** The logical screen, when the run wrote it; else each screenshot's own size. */
  screen: Size | null;
  workflow: Workflow | null;
}

/** Tracks the model's task memory across turns, to show only what changed. */
export class MemoryTracker {
  #previous = '';

  render(memory: string | undefined): Html | null {
    if (memory === undefined) return null;
    const previous = this.#previous;
    this.#previous = memory;
    if (memory === previous) {
      return memory === ''
        ? null
        : html`<p class="memory"><span class="label">Memory</span> <span class="muted">unchanged</span></p>`;
    }
    if (memory === '')
      return html`<p class="memory"><span class="label">Memory</span> <span class="muted">cleared</span></p>`;
    return html`<p class="memory"><span class="label">Memory</span> ${memory}</p>`;
  }
}

function captureLine(capture: RunEventData<'capture'> | null): Html | null {
  if (!capture) return null;
  const settle =
    capture.settle_ms === undefined
      ? ''
      : `${capture.settled === false ? 'not settled after' : 'settled after'} ${formatDuration(capture.settle_ms)}`;
  const changed =
    capture.screen_changed === null
      ? ''
      : capture.screen_changed
        ? 'changed by the last action'
        : 'unchanged by the last action';
  const parts = [settle, changed].filter((p) => p !== '');
  return parts.length > 0 ? html`<span>screen: ${parts.join(', ')}</span>` : null;
}

/** A dashed box around each region a divergence compared. */
function drawRegions(divergences: readonly RunEventData<'divergence'>[]): Html[] {
  return divergences.flatMap(({ region }) =>
    region
      ? [
          html`<rect class="mark-region" x="${region.x}" y="${region.y}" width="${region.width}" height="${region.height}"/>`,
        ]
      : [],
  );
}

function renderTurnShot(turn: Turn, id: string, context: TimelineContext): Html {
  const name =
    turn.capture?.screenshot ??
    turn.step?.screenshot ??
    `subtask_${turn.subtask_i}_iter_${turn.iteration}.png`;
  const image = context.images.get(name);
  const screen = context.screen ?? image?.original ?? null;
  const action = turn.action?.action ?? turn.step?.action ?? null;
  let caption: Html | null = null;
  if (action) caption = captionAction(action, turn.action?.status ?? 'executed');
  else if (turn.step)
    caption = html`<span class="cap-text">${formatStep(turn.step.step_i, { title: true })}: ${turn.step.executed_by}</span>`;
  else if (turn.extract)
    caption = html`<span class="cap-text">extract <code>${turn.extract.variable}</code></span>`;
  else if (turn.done) caption = html`<span class="cap-text">✓ done</span>`;
  const marks = screen ? [...drawRegions(turn.divergences), action && drawAction(action, screen)] : [];
  const replayed: ShotOptions = {
    id,
    name,
    image,
    alt: `Screen at turn ${turn.iteration + 1} of ${formatSubtask(turn.subtask_i)}`,
    screen,
    marks: marks.some(Boolean) ? html`${marks}` : null,
    caption,
  };
  const stepI = turn.step?.step_i;
  const recorded = stepI === undefined ? undefined : context.recordedFrames.get(stepI);
  if (stepI === undefined || !recorded) return renderShot(replayed);
  return renderPair([
    {
      label: 'recorded',
      shot: {
        id: `${id}-recorded`,
        name: recorded,
        image: context.recorded.get(recorded),
        alt: `Recorded screen of ${formatStep(stepI)}`,
      },
    },
    { label: 'replayed', shot: replayed },
  ]);
}

function renderStep(step: RunEventData<'step'>): Html {
  const rung =
    step.rung &&
    html` <span class="rung" title="the rung of the ladder that found the target">found by ${step.rung}</span>`;
  return html`<p class="step-line"><span class="exec exec-${step.executed_by}">${step.executed_by}</span>${rung}${step.score !== null && html` <span class="muted">score ${step.score.toFixed(2)}</span>`}${step.reason && html` ${step.reason}`}</p>`;
}

const CLAIM_WORDS = {
  done: {
    verified: 'Outcome verified',
    refused: 'Done refused',
    unverified: 'Done by the model, unverified',
  },
  extract: { verified: 'Value verified', refused: 'Value refused', unverified: 'Value unverified' },
} as const;

/** A claim of the model checked on the live app: verified (and how it was read), refused, or unverified. */
function renderClaim(claim: RunEventData<'claim'>): Html {
  const read = claim.read === 'app' ? ' (read from the app)' : claim.read === 'ocr' ? ' (read by OCR)' : '';
  return html`<p class="claim claim-${claim.verdict}"><span class="label">${CLAIM_WORDS[claim.claim][claim.verdict]}</span>${read}: ${claim.detail}</p>`;
}

/** One turn: its screenshot with the action drawn, and what the model saw, chose and remembered. */
export function renderTurn(turn: Turn, context: TimelineContext, memory: MemoryTracker): Html {
  const id = `s${turn.subtask_i}-t${turn.iteration}`;
  const { call, action, step, extract, done } = turn;
  const tool = step
    ? formatStep(step.step_i)
    : call
      ? call.name === 'computer_use'
        ? 'action'
        : call.name
      : 'no usable call';
  const toolClass = step ? 'step' : (call?.name ?? 'none');
  const shown = action?.action ?? step?.action ?? null;
  const actionLine = shown
    ? html`<p class="turn-action">${describeActionHtml(shown)}${action && action.status !== 'executed' && html` <span class="badge badge-${action.status}">${action.status.replace('_', ' ')}</span>`}</p>`
    : null;
  const meta = [renderModelUsage(turn.modelCalls), captureLine(turn.capture)].filter((m) => m !== null);
  return html`<li class="turn" id="${id}">
<div class="turn-shot">${renderTurnShot(turn, id, context)}</div>
<div class="turn-body">
<p class="turn-head"><a class="turn-no" href="#${id}">Turn ${turn.iteration + 1}</a><span class="tool tool-${toolClass}">${tool}</span><span class="turn-time">${formatOffset(turn.at)}</span></p>
${actionLine}
${step && renderStep(step)}
${call?.args.observation && html`<blockquote class="observation">${call.args.observation}</blockquote>`}
${memory.render(call?.args.task_memory ?? undefined)}
${extract && html`<p class="extract"><span class="label">Extracted</span> <code>${extract.variable}</code> = <q class="value">${extract.value}</q>${extract.query && html` <span class="muted">(${extract.query})</span>`}</p>`}
${turn.claims.map(renderClaim)}
${done && html`<p class="done-line">✓ Subtask complete${done.result && html`: <q class="value">${done.result}</q>`}</p>`}
${call && call.dropped.length > 0 && html`<p class="muted">Ignored keys the tool does not define: ${call.dropped.map((k, i) => html`${i > 0 && ', '}<code>${k}</code>`)}</p>`}
${call?.name === 'replan' && call.args.reason && renderCallout('warn', 'Asked for a new plan', call.args.reason)}
${turn.repairs.map((r) => renderCallout('warn', 'Invalid call, asked again', html`<ul>${r.problems.map((p) => html`<li>${p.path && html`<code>${p.path}</code>: `}${p.message}</li>`)}</ul>`))}
${action?.error && renderCallout(action.status === 'refused' ? 'warn' : 'bad', action.status === 'refused' ? "Refused: outside the workflow's apps" : 'The action failed', action.error)}
${turn.errors.map((e) => renderCallout('bad', html`Error <code>${e.code}</code>`, e.message))}
${turn.divergences.map((d, i) => renderDivergence(d, `${id}-d${i}`, context.images))}
${turn.verified.map(renderVerified)}
${renderUnreadable(turn.unreadable)}
${meta.length > 0 && html`<p class="turn-meta">${meta.map((m, i) => html`${i > 0 && html`<span class="sep">·</span>`}${m}`)}</p>`}
</div>
</li>`;
}
