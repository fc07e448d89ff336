/**
 * The tools the agent loop offers the model (DESIGN.md, "Replay modes"): exactly one is called per
 * turn. Their zod schemas are the single source of the JSON Schema sent and of the validation of the
 * reply; what a schema cannot say (which fields an action needs, a readable key chord) is checked by
 * `checkAgentCall`.
 */
import type { ToolChoice } from '@mime-desktop/model';
import { RUN_ACTIONS, type RunAction } from '@mime-desktop/schema';
import { z } from 'zod';
import { describePointSpace, type PointSpace } from './coordinates.ts';

/**
 * Actions of `computer_use`, in the Qwen computer-use vocabulary: the run contract's actions
 * (`RunAction`), and `terminate`.
 */
export type ComputerAction = RunAction['action'] | 'terminate';
export const COMPUTER_ACTIONS: readonly ComputerAction[] = [...RUN_ACTIONS, 'terminate'];

const DIRECTIONS = ['up', 'down', 'left', 'right'] as const;

const observation = z
  .string()
  .describe('What the screenshot shows now that matters for this decision, in one or two sentences.');
const taskMemory = z
  .string()
  .nullable()
  .describe(
    'Memory carried to the next turns and subtasks: progress and facts worth keeping. Repeat the previous memory when nothing changed (null keeps it).',
  );
/** A point as the model writes it; its range depends on the coordinate convention, checked when resolved. */
const point = z
  .array(z.number(), { error: 'must be an array [x, y] of two numbers' })
  .length(2, 'must be [x, y]: two numbers');

export const ComputerUseArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  action: z.enum(COMPUTER_ACTIONS, {
    error: (issue) =>
      `action ${JSON.stringify(issue.input)} is not one of ${COMPUTER_ACTIONS.join(', ')} (to finish the subtask call done; to give up, replan)`,
  }),
  coordinate: point
    .nullable()
    .describe(
      'Where to act: required for the clicks, mouse_move and the start of left_click_drag; optional for scroll (where to scroll); null otherwise.',
    ),
  end_coordinate: point.nullable().describe('left_click_drag only: where the drag ends; null otherwise.'),
  text: z
    .string()
    .nullable()
    .describe('type only: the exact text to type (write a sensitive param as its {name}); null otherwise.'),
  keys: z
    .string()
    .nullable()
    .describe(
      'key only: a key or chord such as "enter", "escape", "ctrl+a", "ctrl+shift+t"; null otherwise.',
    ),
  scroll_direction: z
    .enum(DIRECTIONS, {
      error: (issue) =>
        `scroll_direction ${JSON.stringify(issue.input)} is not one of ${DIRECTIONS.join(', ')}`,
    })
    .nullable()
    .describe('scroll only; null otherwise.'),
  scroll_amount: z.int().min(1).max(25).nullable().describe('scroll only: wheel notches (default 3).'),
  wait_seconds: z.number().min(0).max(10).nullable().describe('wait only: seconds to wait (default 1).'),
  status: z
    .enum(['success', 'failure'])
    .nullable()
    .describe(
      "terminate only (Qwen's way to end a subtask): success = done, failure = ask for a new plan; null otherwise.",
    ),
});
export type ComputerUseArgs = z.infer<typeof ComputerUseArgs>;

export const ExtractArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  variable_name: z.string().describe('Name of the value, as the subtask lists it (e.g. now_playing).'),
  query: z.string().describe('What was read.'),
  value: z
    .string()
    .nullable()
    .describe(
      'The value exactly as the screenshot shows it; null to have it read from this screenshot in a separate look.',
    ),
});
export type ExtractArgs = z.infer<typeof ExtractArgs>;

export const DoneArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  result: z
    .string()
    .nullable()
    .describe(
      'What the subtask achieved, for the later subtasks (e.g. "Numb is playing"); null if nothing to add.',
    ),
});
export type DoneArgs = z.infer<typeof DoneArgs>;

export const ReplanArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  reason: z.string().describe('Why the subtask cannot be done as written from this screen.'),
});
export type ReplanArgs = z.infer<typeof ReplanArgs>;

/** The tools offered each turn; points are described in the model's coordinate convention. */
export function agentTools(space: PointSpace) {
  return [
    {
      name: 'computer_use',
      description: `Perform one mouse or keyboard action on the screen. Points are ${describePointSpace(space)}; aim at the center of the element.`,
      parameters: ComputerUseArgs,
      prepare: prepareComputerUse,
    },
    {
      name: 'extract',
      description:
        'Read a value the subtask asks for from the screenshot, without acting; give the value exactly as shown.',
      parameters: ExtractArgs,
      prepare: (args: unknown) => withNulls(prepareCommon(args), ['value']),
    },
    {
      name: 'done',
      description: 'Declare the current subtask complete: its expected outcome is visible on the screen now.',
      parameters: DoneArgs,
      prepare: (args: unknown) => withNulls(prepareCommon(args), ['result']),
    },
    {
      name: 'replan',
      description:
        'Ask for a new plan of the remaining work when the subtask cannot be done as written from this screen.',
      parameters: ReplanArgs,
      prepare: prepareCommon,
    },
  ] as const;
}
export type AgentTools = ReturnType<typeof agentTools>;

/** A call of one of the agent tools, with validated arguments. */
export type AgentCall = ToolChoice<AgentTools>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `observation` and `task_memory` as models send them: either may be missing (Qwen's own computer-use
 * prompt has neither); a missing memory is `null`, which keeps the last one.
 */
function prepareCommon(args: unknown): unknown {
  if (!isRecord(args)) return args;
  return { ...args, observation: args.observation ?? '', task_memory: args.task_memory ?? null };
}

/**
 * Optional fields as a vocabulary without them sends them: absent is `null` (ai_mime's `done` has
 * `result` but no observation; its `extract` names the value and the query but carries no value).
 */
function withNulls(args: unknown, keys: readonly string[]): unknown {
  if (!isRecord(args)) return args;
  return { ...Object.fromEntries(keys.map((key) => [key, null])), ...args };
}

/** Wheel notches per scroll unit when a model gives Qwen's `pixels` as a large number. */
const PIXELS_PER_NOTCH = 100;

/**
 * `computer_use` arguments as Qwen's computer-use models emit them, read into mime's schema: fields an
 * action does not use may be absent; `keys` as an array (`["ctrl", "s"]`) or a chord; Qwen's `pixels`
 * (scroll, positive up; small values are notches, large ones pixels) and `time` (wait, seconds) beside
 * `scroll_amount` and `wait_seconds`; `hscroll` (positive right); numbers and points sent as text.
 * Anything else is left for the schema to name.
 */
export function prepareComputerUse(args: unknown): unknown {
  if (!isRecord(args)) return args;
  const { pixels, time, ...rest } = prepareCommon(args) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    coordinate: null,
    end_coordinate: null,
    text: null,
    keys: null,
    scroll_direction: null,
    scroll_amount: null,
    wait_seconds: null,
    status: null,
    ...rest,
  };
  for (const key of ['coordinate', 'end_coordinate'] as const) out[key] = pointFromText(out[key]);
  if (Array.isArray(out.keys)) out.keys = out.keys.map(String).join('+');
  if (out.action === 'hscroll' || (out.action === 'scroll' && out.scroll_direction === null)) {
    scrollFromPixels(out, pixels);
  }
  if (out.wait_seconds === null && time !== undefined) out.wait_seconds = numberFromText(time);
  for (const key of ['scroll_amount', 'wait_seconds'] as const) out[key] = numberFromText(out[key]);
  return out;
}

/** Qwen's signed `pixels` (up or right when positive) as a direction and wheel notches. */
function scrollFromPixels(out: Record<string, unknown>, pixels: unknown): void {
  const amount = numberFromText(pixels);
  if (typeof amount === 'number' && amount !== 0) {
    const vertical = out.action === 'scroll';
    out.scroll_direction = vertical ? (amount > 0 ? 'up' : 'down') : amount > 0 ? 'right' : 'left';
    const size = Math.abs(amount);
    out.scroll_amount ??= Math.min(25, Math.max(1, Math.round(size <= 25 ? size : size / PIXELS_PER_NOTCH)));
  }
  out.action = 'scroll';
}

function numberFromText(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** `"[412, 88]"` or `"412,88"` (a point sent as text) as `[412, 88]`. */
function pointFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const match = /^\s*\[?\s*(-?[\d.]+)\s*[, ]\s*(-?[\d.]+)\s*\]?\s*$/.exec(value);
  return match ? [Number(match[1]), Number(match[2])] : value;
}

/**
 * A call as the agent acts on it: Qwen's `computer_use` `terminate` ends the subtask like `done`
 * (status success) or asks for a new plan like `replan` (status failure).
 */
export function canonicalCall(call: AgentCall): AgentCall {
  if (call.name !== 'computer_use' || call.args.action !== 'terminate') return call;
  const { observation, task_memory } = call.args;
  if (call.args.status === 'failure') {
    const reason = observation.trim() || 'The model ended the subtask as failed (terminate, status failure).';
    return { name: 'replan', args: { observation, task_memory, reason }, dropped: call.dropped };
  }
  return { name: 'done', args: { observation, task_memory, result: null }, dropped: call.dropped };
}

/** A value read from a screenshot in a look of its own (an extract that named no value). */
export const ExtractedValue = z.strictObject({
  value: z
    .string()
    .describe('The value exactly as the screenshot shows it; an empty string when it is not there.'),
});

/** The revised plan a replan returns: the remaining subtasks, in order. */
export const RevisedPlan = z.strictObject({
  observation: z.string().describe('What the screenshot shows now.'),
  subtasks: z
    .array(
      z.strictObject({
        text: z.string().min(1).describe('Instruction ending with "Expected outcome: ...".'),
        reference_steps: z
          .array(z.int())
          .describe('Numbers (i) of the listed reference steps that show how to do this subtask.'),
        extracts: z
          .array(z.string())
          .describe('Names of the values still to extract that this subtask extracts.'),
      }),
    )
    .min(1),
});
export type RevisedPlan = z.infer<typeof RevisedPlan>;

/** Words that say nothing of what a subtask is about. */
const FILLER = new Set(
  'about after again before click expected from held instruction into item once outcome placeholder plan screen step steps string subtask task text that then there this until what when where which with your'.split(
    ' ',
  ),
);

const wordsOf = (text: string): Set<string> =>
  new Set((text.toLowerCase().match(/\p{L}{3,}/gu) ?? []).filter((word) => !FILLER.has(word)));

/**
 * The revised plan's schema for one replan: a plan must describe the work that remains. A subtask
 * text of fewer than three words, or a plan that names nothing of the task or of the remaining plan
 * (a placeholder such as "held-out text"), is refused and asked again.
 */
export function revisedPlanFor(
  remaining: readonly { text: string }[],
  task: { name: string; description: string },
) {
  const known = wordsOf([task.name, task.description, ...remaining.map((s) => s.text)].join(' '));
  return RevisedPlan.superRefine((plan, ctx) => {
    for (const [k, subtask] of plan.subtasks.entries()) {
      if ((subtask.text.match(/\p{L}+/gu) ?? []).length < 3) {
        ctx.addIssue({
          code: 'custom',
          path: ['subtasks', k, 'text'],
          message: `${JSON.stringify(subtask.text)} is not an instruction: say what to do and end with "Expected outcome: ..."`,
        });
      }
    }
    const named = plan.subtasks.some((subtask) => [...wordsOf(subtask.text)].some((word) => known.has(word)));
    if (!named) {
      ctx.addIssue({
        code: 'custom',
        path: ['subtasks'],
        message:
          'the plan names nothing of the task or of the remaining plan: write the real remaining subtasks, not a placeholder',
      });
    }
  });
}
