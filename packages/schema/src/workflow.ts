import { z } from 'zod';
import { ElementIdentity } from './element.ts';
import { RelativePath } from './paths.ts';
import { IDENTIFIER } from './templates.ts';

/** The version this package writes. */
export const WORKFLOW_VERSION = 2;

/** Step action types, upper case as ai_mime writes them. */
export const STEP_ACTION_TYPES = [
  'CLICK',
  'DOUBLE_CLICK',
  'RIGHT_CLICK',
  'MIDDLE_CLICK',
  'TYPE',
  'KEYPRESS',
  'SCROLL',
  'DRAG',
  'EXTRACT',
] as const;
export const StepActionType = z.enum(STEP_ACTION_TYPES);
export type StepActionType = z.infer<typeof StepActionType>;

/** The step types that act at a point on the screen (a drag from one to another): they type no value. */
export const POINTER_STEP_TYPES: ReadonlySet<StepActionType> = new Set<StepActionType>([
  'CLICK',
  'DOUBLE_CLICK',
  'RIGHT_CLICK',
  'MIDDLE_CLICK',
  'DRAG',
  'SCROLL',
]);

const identifier = (what: string) =>
  z
    .string()
    .regex(IDENTIFIER, `${what} must be an identifier: a letter or _ then letters, digits or _`)
    .refine(
      (name) => name !== '__proto__',
      `${what} must not be __proto__ (JavaScript gives objects that name)`,
    );

/**
 * Fields another tool wrote that mime does not use (ai_mime's `additional_args`, `details`, a param's
 * `default`, keys it does not know), kept as they were: a save in that tool's layout writes them back,
 * so a file that came from ai_mime still reads there after mime saved it.
 */
export const KeptFields = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    "Fields of another tool's layout that mime does not use, kept as they were and written back on save.",
  );
export type KeptFields = z.infer<typeof KeptFields>;

/** A point in logical screen pixels (the space of the saved screenshots). */
export const LogicalPoint = z.object({ x: z.number(), y: z.number() });
export type LogicalPoint = z.infer<typeof LogicalPoint>;

/** A box in logical screen pixels. */
export const LogicalBox = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number().positive(),
  height: z.number().positive(),
});
export type LogicalBox = z.infer<typeof LogicalBox>;

/**
 * The top-level window a pointer action went to, and where it stood when it was recorded: at replay a
 * window found at another place or size maps the recorded point window-relative.
 */
export const SourceWindow = z
  .strictObject({
    title: z.string().max(1024).describe('Its title.'),
    classes: z.array(z.string().max(256)).max(8).describe('Its WM_CLASS names (instance, class).'),
    box: LogicalBox.describe('Its frame on the screen, logical px.'),
  })
  .describe('The window under the pointer when the action was recorded.');
export type SourceWindow = z.infer<typeof SourceWindow>;

/** Size of the target box recorded around an action point, logical px. */
export const TARGET_BOX = { width: 160, height: 64 } as const;

/** The target box around an action point, kept on the screen when its size is known. */
export function targetBoxAround(point: LogicalPoint, screen?: { width: number; height: number }): LogicalBox {
  const { width, height } = TARGET_BOX;
  const maxX = (screen?.width ?? Number.POSITIVE_INFINITY) - width;
  const maxY = (screen?.height ?? Number.POSITIVE_INFINITY) - height;
  return {
    x: Math.max(0, Math.min(Math.round(point.x - width / 2), maxX)),
    y: Math.max(0, Math.min(Math.round(point.y - height / 2), maxY)),
    width,
    height,
  };
}

/** Where a step came from in the recording; trace and auto replay act from it. */
export const StepSource = z
  .strictObject({
    event_index: z.int().nonnegative().describe('Index of the event in manifest.jsonl (0-based).'),
    screenshot: RelativePath.describe('The PRE frame, relative to the workflow folder.'),
    point: LogicalPoint.nullable().default(null).describe('Action point in logical pixels.'),
    end_point: LogicalPoint.nullable().default(null).describe('Drag end point in logical pixels.'),
    box: LogicalBox.nullable().default(null).describe('Target box around the action point.'),
    window: SourceWindow.optional(),
  })
  .describe('The recorded event this step was reflected from.');
export type StepSource = z.infer<typeof StepSource>;

export const StepTarget = z.strictObject({
  primary: z.string().describe('Coordinate-free description of the target element.'),
  fallback: z.string().nullable().default(null).describe('Another way to find it.'),
  element: ElementIdentity.optional().describe(
    'The element as the app’s accessibility tree named it when it was recorded: found first at replay.',
  ),
});
export type StepTarget = z.infer<typeof StepTarget>;

export const WorkflowStep = z.strictObject({
  i: z.int().nonnegative().describe('Step number across the whole plan, from 0.'),
  expected_current_state: z.string().default('').describe('The screen on which the action is taken.'),
  intent: z.string().min(1, 'intent must not be empty').describe('Why the step is taken, one sentence.'),
  target: StepTarget,
  action_type: StepActionType,
  action_value: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Text for TYPE, key chord for KEYPRESS, query for EXTRACT, otherwise null. May hold {param} templates. A TYPE or KEYPRESS without one (null, as ai_mime writes it) takes the recorded value, else the model decides it.',
    ),
  post_action: z
    .array(z.string())
    .default([])
    .describe('What changes on screen after the action (1-2 lines).'),
  variable_name: identifier('variable_name')
    .nullable()
    .default(null)
    .describe('Name of the extracted value (EXTRACT only).'),
  source: StepSource.nullable().default(null),
  type_delay_ms: z
    .int()
    .min(0)
    .max(1000)
    .optional()
    .describe(
      "TYPE only: pause after each key for this step, ms, for an app that drops keys typed faster (overrides the replay's type delay).",
    ),
  kept: KeptFields,
});
export type WorkflowStep = z.infer<typeof WorkflowStep>;

export const WorkflowSubtask = z.strictObject({
  subtask_i: z.int().nonnegative().describe('Position of the subtask, from 0.'),
  text: z
    .string()
    .min(1, 'text must not be empty')
    .describe('Instruction with {param} templates and "Expected outcome: ...".'),
  dependencies: z
    .array(z.string())
    .default([])
    .describe('Variable names of EXTRACT steps in earlier subtasks whose values this subtask uses.'),
  steps: z
    .array(WorkflowStep)
    .default([])
    .describe('Reference steps (examples for the model; trace replay acts on them).'),
  kept: KeptFields,
});
export type WorkflowSubtask = z.infer<typeof WorkflowSubtask>;

export const PARAM_TYPES = ['string', 'number', 'integer', 'boolean'] as const;

export const TaskParam = z.strictObject({
  name: identifier('name'),
  type: z.enum(PARAM_TYPES).default('string'),
  description: z.string().default(''),
  example: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'The value the recording used: shown to whoever gives the param, and used by a replay only when asked (`--use-examples`).',
    ),
  default: z
    .string()
    .nullable()
    .optional()
    .describe(
      'The value a replay uses when given none (ai_mime Pass C inputs carry one); without it the param is required unless optional.',
    ),
  sensitive: z
    .boolean()
    .default(false)
    .describe('A secret: never stored, logged or shown; read from MIME_PARAM_<NAME> or a hidden prompt.'),
  optional: z.boolean().default(false),
  kept: KeptFields,
});
export type TaskParam = z.infer<typeof TaskParam>;

/** Whether a run must be given the param: it is neither optional nor has a `default` (its example never counts). */
export function isRequiredParam(param: TaskParam): boolean {
  return !param.optional && (param.default ?? null) === null;
}

/**
 * How to start the app a workflow drives, and the window to wait for: replay runs the command (when
 * allowed to) before the first subtask unless such a window is already open, then waits for it.
 */
export const WorkflowSetup = z
  .strictObject({
    command: z
      .string()
      .min(1, 'command must not be empty')
      .max(4096)
      .describe('Shell command that starts the app, e.g. "mousepad /tmp/notes.txt".'),
    window: z
      .strictObject({
        title: z.string().min(1).optional().describe('Regular expression the window title must match.'),
        class: z
          .string()
          .min(1)
          .optional()
          .describe('Regular expression the window class (WM_CLASS) must match.'),
      })
      .refine((w) => w.title !== undefined || w.class !== undefined, 'window needs a title or a class')
      .describe('The app window replay waits for before the first step.'),
    timeout_ms: z
      .int()
      .positive()
      .max(600_000)
      .default(30_000)
      .describe('How long to wait for the window, ms.'),
    reset: z
      .union([
        z.literal('restart'),
        z.strictObject({
          command: z
            .string()
            .min(1, 'command must not be empty')
            .max(4096)
            .describe(
              'Shell command that puts the app back in its recorded starting state; replay waits for it to exit.',
            ),
          timeout_ms: z
            .int()
            .positive()
            .max(600_000)
            .default(30_000)
            .describe('How long the command may take, ms.'),
        }),
      ])
      .optional()
      .describe(
        'How `--fresh` puts the app in the state the recording starts from before a run: "restart" (the default) ends the app that owns the window and runs the setup command again; {command} runs a reset command instead.',
      ),
  })
  .describe('Launch of the app before the first subtask.');
export type WorkflowSetup = z.infer<typeof WorkflowSetup>;

export const Workflow = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal(WORKFLOW_VERSION).default(WORKFLOW_VERSION),
    task_name: z.string().min(1, 'task_name must not be empty'),
    task_description_user: z.string().default(''),
    detailed_task_description: z.string().default(''),
    task_params: z.array(TaskParam).default([]),
    success_criteria: z.string().default(''),
    setup: WorkflowSetup.optional(),
    requires_login: z
      .boolean()
      .optional()
      .describe('Whether a run needs the person to be logged in to the app or site already.'),
    side_effects: z
      .array(z.string().min(1).max(1000))
      .max(50)
      .optional()
      .describe(
        'What a run changes outside the screen: "Sends a message to the recipient", "Adds rows to a sheet".',
      ),
    stops_before_payment: z
      .boolean()
      .optional()
      .describe('Whether a run stops before paying or confirming a purchase.'),
    safety_notes: z
      .array(z.string().min(1).max(1000))
      .max(50)
      .optional()
      .describe('What a person or an agent should know before running it.'),
    plan: z.strictObject({
      subtasks: z.array(WorkflowSubtask).min(1, 'a plan needs at least one subtask'),
    }),
    kept: KeptFields,
  })
  .describe('A mime workflow (schema.json, version 2).');
export type Workflow = z.infer<typeof Workflow>;
/** A workflow as written by hand: defaulted fields may be left out. */
export type WorkflowInput = z.input<typeof Workflow>;

/** Every step of a workflow in plan order, with its subtask index. */
export function listSteps(workflow: Workflow): Array<{ subtask_i: number; step: WorkflowStep }> {
  return workflow.plan.subtasks.flatMap((subtask) =>
    subtask.steps.map((step) => ({ subtask_i: subtask.subtask_i, step })),
  );
}
