/**
 * A `computer_use` call turned into an action on the logical screen: the fields its action needs are
 * checked (problems name the field and say what to send) and the model's points are mapped to pixels
 * in its coordinate convention. Also how a call is written back into the model's history.
 */
import type { LogicalPoint } from '@mime-desktop/os-io';
import { type Problem, parseKeyChord } from '@mime-desktop/schema';
import type { ResolvedAction } from '../actions/computer-action.ts';
import type { ComputerUseArgs } from './agent-tools.ts';
import { describePointSpace, modelPointToLogical, type PointSpace } from './coordinates.ts';

export type ResolvedOrProblems = { ok: true; action: ResolvedAction } | { ok: false; problems: Problem[] };

/** Default wheel notches of a scroll. */
export const DEFAULT_SCROLL_AMOUNT = 3;
/** Default seconds of a wait. */
export const DEFAULT_WAIT_SECONDS = 1;

/** Control characters other than newline and tab cannot be typed: they are keys. */
function hasUntypeable(text: string): boolean {
  return [...text].some((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (code < 0x20 && char !== '\n' && char !== '\t') || code === 0x7f;
  });
}

const ok = (action: ResolvedAction): ResolvedOrProblems => ({ ok: true, action });
const problem = (path: string, message: string): ResolvedOrProblems => ({
  ok: false,
  problems: [{ path, message }],
});

/** Checks a `computer_use` call and maps its points to the screen. */
export function resolveComputerAction(args: ComputerUseArgs, space: PointSpace): ResolvedOrProblems {
  const start = args.coordinate ? modelPointToLogical(args.coordinate, space) : null;
  const end = args.end_coordinate ? modelPointToLogical(args.end_coordinate, space) : null;
  const outside = [
    ...(start && !start.ok ? [{ path: 'coordinate', message: start.message }] : []),
    ...(end && !end.ok ? [{ path: 'end_coordinate', message: end.message }] : []),
  ];
  if (outside.length > 0) return { ok: false, problems: outside };
  const point = start?.ok ? start.point : null;
  switch (args.action) {
    case 'left_click':
    case 'double_click':
    case 'right_click':
    case 'middle_click':
    case 'mouse_move':
      return point
        ? ok({ action: args.action, point })
        : problem('coordinate', `${args.action} needs a coordinate: ${describePointSpace(space)}`);
    case 'left_click_drag':
      return resolveDrag(point, end?.ok ? end.point : null);
    case 'type':
      return resolveText(args.text);
    case 'key':
      return resolveKeys(args.keys);
    case 'scroll':
      return args.scroll_direction
        ? ok({
            action: 'scroll',
            direction: args.scroll_direction,
            amount: args.scroll_amount ?? DEFAULT_SCROLL_AMOUNT,
            point,
          })
        : problem('scroll_direction', 'scroll needs scroll_direction: up, down, left or right');
    case 'wait':
      return ok({ action: 'wait', seconds: args.wait_seconds ?? DEFAULT_WAIT_SECONDS });
    case 'terminate':
      return problem(
        'action',
        'terminate is not an action on the screen: call done when the subtask is complete',
      );
  }
}

function resolveDrag(point: LogicalPoint | null, end: LogicalPoint | null): ResolvedOrProblems {
  if (point && end) return ok({ action: 'left_click_drag', point, endPoint: end });
  const problems: Problem[] = [];
  if (!point)
    problems.push({ path: 'coordinate', message: 'left_click_drag needs the start coordinate [x, y]' });
  if (!end) {
    problems.push({
      path: 'end_coordinate',
      message: 'left_click_drag needs the end_coordinate [x, y] where the drag ends',
    });
  }
  return { ok: false, problems };
}

function resolveText(text: string | null): ResolvedOrProblems {
  if (!text) return problem('text', 'type needs the text to type');
  if (hasUntypeable(text)) {
    return problem(
      'text',
      'contains a control character; press keys such as escape or backspace with action "key"',
    );
  }
  return ok({ action: 'type', text });
}

function resolveKeys(keys: string | null): ResolvedOrProblems {
  if (!keys) return problem('keys', 'key needs keys: a key or chord such as "enter" or "ctrl+a"');
  try {
    parseKeyChord(keys);
    return ok({ action: 'key', keys });
  } catch (error) {
    return problem('keys', (error as Error).message);
  }
}

/** The call as the model wrote it, for its own history: `left_click [123, 456]`, `type "Faint"`. */
export function describeCallForModel(args: ComputerUseArgs): string {
  const grid = (pair: readonly number[] | null) =>
    pair ? `[${pair.map((v) => Math.round(v)).join(', ')}]` : '';
  switch (args.action) {
    case 'left_click_drag':
      return `left_click_drag ${grid(args.coordinate)} -> ${grid(args.end_coordinate)}`;
    case 'type':
      return `type ${JSON.stringify(args.text ?? '')}`;
    case 'key':
      return `key ${args.keys ?? ''}`;
    case 'scroll':
      return `scroll ${args.scroll_direction ?? ''} ${args.scroll_amount ?? DEFAULT_SCROLL_AMOUNT}${args.coordinate ? ` at ${grid(args.coordinate)}` : ''}`;
    case 'wait':
      return `wait ${args.wait_seconds ?? DEFAULT_WAIT_SECONDS} s`;
    case 'left_click':
    case 'double_click':
    case 'right_click':
    case 'middle_click':
    case 'mouse_move':
    case 'terminate':
      return `${args.action} ${grid(args.coordinate)}`;
  }
}

/**
 * What identifies "the same action again" for the no-progress check: the action, its coordinates to
 * the nearest 10 grid units, and its text or keys.
 */
export function actionSignature(args: ComputerUseArgs): string {
  const coarse = (pair: readonly number[] | null) =>
    pair ? pair.map((v) => Math.round(v / 10)).join(',') : '';
  return [
    args.action,
    coarse(args.coordinate),
    coarse(args.end_coordinate),
    args.text ?? '',
    args.keys ?? '',
    args.scroll_direction ?? '',
  ].join('|');
}
