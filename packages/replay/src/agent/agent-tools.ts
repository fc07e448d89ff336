/**
 * The tools the agent loop offers the model (DESIGN.md, "Replay modes"): exactly one is called per
 * turn. Their zod schemas are the single source of the JSON Schema sent and of the validation of the
 * reply; what a schema cannot say (which fields an action needs, a readable key chord) is checked by
 * `checkAgentCall`.
 */
import type { ToolChoice } from '@mime-desktop/model';
import { z } from 'zod';
import { GRID_MAX } from './coordinates.ts';

/** Actions of `computer_use`, in the Qwen computer-use vocabulary. */
export const COMPUTER_ACTIONS = [
  'left_click',
  'double_click',
  'right_click',
  'middle_click',
  'mouse_move',
  'left_click_drag',
  'type',
  'key',
  'scroll',
  'wait',
] as const;
export type ComputerAction = (typeof COMPUTER_ACTIONS)[number];

const observation = z
  .string()
  .describe('What the screenshot shows now that matters for this decision, in one or two sentences.');
const taskMemory = z
  .string()
  .describe(
    'Memory carried to the next turns and subtasks: progress and facts worth keeping. Repeat the previous memory when nothing changed.',
  );
const gridPoint = z
  .array(z.number().min(0).max(GRID_MAX))
  .length(2)
  .describe(
    `[x, y] on the 0..${GRID_MAX} grid of the screenshot ([0, 0] top-left, [1000, 1000] bottom-right).`,
  );

export const ComputerUseArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  action: z.enum(COMPUTER_ACTIONS),
  coordinate: gridPoint
    .nullable()
    .describe(
      'Where to act, [x, y] on the 0..1000 grid: required for the clicks, mouse_move and the start of left_click_drag; optional for scroll (where to scroll); null otherwise.',
    ),
  end_coordinate: gridPoint
    .nullable()
    .describe('left_click_drag only: [x, y] where the drag ends; null otherwise.'),
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
    .enum(['up', 'down', 'left', 'right'])
    .nullable()
    .describe('scroll only; null otherwise.'),
  scroll_amount: z.int().min(1).max(25).nullable().describe('scroll only: wheel notches (default 3).'),
  wait_seconds: z.number().min(0).max(10).nullable().describe('wait only: seconds to wait (default 1).'),
});
export type ComputerUseArgs = z.infer<typeof ComputerUseArgs>;

export const ExtractArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  variable_name: z.string().describe('Name of the value, as the subtask lists it (e.g. now_playing).'),
  query: z.string().describe('What was read.'),
  value: z.string().describe('The value exactly as the screenshot shows it.'),
});
export type ExtractArgs = z.infer<typeof ExtractArgs>;

export const DoneArgs = z.strictObject({ observation, task_memory: taskMemory });
export type DoneArgs = z.infer<typeof DoneArgs>;

export const ReplanArgs = z.strictObject({
  observation,
  task_memory: taskMemory,
  reason: z.string().describe('Why the subtask cannot be done as written from this screen.'),
});
export type ReplanArgs = z.infer<typeof ReplanArgs>;

export const AGENT_TOOLS = [
  {
    name: 'computer_use',
    description:
      'Perform one mouse or keyboard action on the screen. Coordinates are [x, y] on a 0..1000 grid laid over the screenshot; aim at the center of the element.',
    parameters: ComputerUseArgs,
  },
  {
    name: 'extract',
    description:
      'Read a value the subtask asks for from the screenshot, without acting; give the value exactly as shown.',
    parameters: ExtractArgs,
  },
  {
    name: 'done',
    description: 'Declare the current subtask complete: its expected outcome is visible on the screen now.',
    parameters: DoneArgs,
  },
  {
    name: 'replan',
    description:
      'Ask for a new plan of the remaining work when the subtask cannot be done as written from this screen.',
    parameters: ReplanArgs,
  },
] as const;

/** A call of one of the agent tools, with validated arguments. */
export type AgentCall = ToolChoice<typeof AGENT_TOOLS>;

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
