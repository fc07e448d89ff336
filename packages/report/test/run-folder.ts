/**
 * Builds run folders by hand for the report's tests: events with increasing times, a summary,
 * a rendered workflow and real PNG screenshots (sharp), in a temporary folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunEvent, type RunSummary, runEventProblems, type WorkflowInput } from '@mime-desktop/schema';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import sharp from 'sharp';

export type EventSpec = Pick<RunEvent, 'type'> & {
  subtask_i?: number | null;
  iteration?: number | null;
  data?: Record<string, unknown>;
  /** Data that breaks the run contract on purpose (an older or damaged run); others are checked. */
  raw?: true;
};

export interface RunFolderSpec {
  events: EventSpec[];
  /** summary.json; omitted: a run killed before it ended. */
  summary?: RunSummary;
  workflow?: WorkflowInput;
  /** PNG screenshots to write, by file name: their size in pixels. */
  images?: Record<string, { width: number; height: number }>;
  /** Text appended to events.jsonl as it is, e.g. half a line left by a killed writer. */
  tail?: string;
}

const START = Date.parse('2026-11-22T10:15:00.000Z');

/** A screenshot-like PNG: a light window with a dark title bar and a few boxes. */
async function writeScreenshot(file: string, width: number, height: number): Promise<void> {
  const bar = Math.max(4, Math.round(height / 12));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<rect width="100%" height="100%" fill="#fafafa"/><rect width="100%" height="${bar}" fill="#111"/>
<rect x="${width * 0.05}" y="${height * 0.2}" width="${width * 0.4}" height="${height * 0.08}" fill="none" stroke="#333" stroke-width="2"/>
<rect x="${width * 0.55}" y="${height * 0.2}" width="${width * 0.2}" height="${height * 0.08}" fill="#1d4ed8"/>
<rect x="${width * 0.55}" y="${height * 0.5}" width="${width * 0.4}" height="${height * 0.3}" fill="#e5e7eb"/></svg>`;
  await sharp(Buffer.from(svg)).png().toFile(file);
}

/** Writes a run folder under a temp folder of the current test (removed after it) and returns its path. */
export async function makeRunFolder(spec: RunFolderSpec): Promise<string> {
  const root = await tempDir('mime-report-test-');
  const dir = join(root, '.replay', '20261122T101500Z-beef');
  await mkdir(dir, { recursive: true });
  const lines = spec.events.map((event, n) => {
    const line = {
      time: new Date(START + n * 100).toISOString(),
      type: event.type,
      subtask_i: event.subtask_i ?? null,
      iteration: event.iteration ?? null,
      data: event.data ?? {},
    };
    const problems = event.raw ? [] : runEventProblems(line);
    if (problems.length > 0)
      throw new Error(`test event ${n} (${event.type}) breaks the run contract: ${JSON.stringify(problems)}`);
    return JSON.stringify(line);
  });
  await writeFile(join(dir, 'events.jsonl'), `${lines.join('\n')}\n${spec.tail ?? ''}`);
  if (spec.summary) await writeFile(join(dir, 'summary.json'), JSON.stringify(spec.summary));
  if (spec.workflow) await writeFile(join(dir, 'schema.rendered.json'), JSON.stringify(spec.workflow));
  for (const [name, size] of Object.entries(spec.images ?? {})) {
    await writeScreenshot(join(dir, name), size.width, size.height);
  }
  return dir;
}

/** The summary of a one-subtask run; `overrides` replace top-level fields. */
export function summaryOf(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    run_id: '20261122T101500Z-beef',
    workflow: '/work/workflows/login',
    task_name: 'log in to the demo app',
    mode: 'agent',
    outcome: 'success',
    code: null,
    reason: null,
    report_error: null,
    started_at: new Date(START).toISOString(),
    ended_at: new Date(START + 5000).toISOString(),
    duration_ms: 5000,
    params: { user: 'ada', password: '{password}' },
    subtasks: [
      {
        subtask_i: 0,
        text: 'Log in as ada. Expected outcome: the inbox shows.',
        outcome: 'success',
        origin: 'workflow',
        iterations: 2,
        duration_ms: 4000,
        steps: [{ i: 0, executed_by: 'agent', reason: 'agent mode: the model acted on the live screen' }],
      },
    ],
    usage: { calls: 2, requests: 3, input_tokens: 4000, output_tokens: 160, duration_ms: 900 },
    dry_run: false,
    budgets: {
      iterations: { used: 2, limit: 15 },
      model_calls: { used: 2, limit: 60 },
      replans: { used: 0, limit: 2 },
      wall_time: { used: 5000, limit: 600000 },
    },
    extracts: {},
    ...overrides,
  };
}

/** The rendered workflow of {@link summaryOf}: `password` is sensitive. */
export const LOGIN_WORKFLOW: WorkflowInput = {
  task_name: 'log in to the demo app',
  task_description_user: 'Log in to the demo app with a user and password.',
  success_criteria: 'The inbox shows.',
  task_params: [
    { name: 'user', example: 'ada' },
    { name: 'password', sensitive: true },
  ],
  plan: {
    subtasks: [
      {
        subtask_i: 0,
        text: 'Log in as ada. Expected outcome: the inbox shows.',
        steps: [
          {
            i: 0,
            intent: 'Type the password.',
            target: { primary: 'The password field' },
            action_type: 'TYPE',
            action_value: '{password}',
          },
        ],
      },
    ],
  },
};

/** A capture, an act call, its tool call and the executed action: one agent turn. */
export function agentTurn(
  subtask_i: number,
  iteration: number,
  action: Record<string, unknown>,
  observation: string,
  memory = '',
): EventSpec[] {
  const at = { subtask_i, iteration };
  return [
    {
      type: 'capture',
      ...at,
      data: {
        screenshot: `subtask_${subtask_i}_iter_${iteration}.png`,
        settled: true,
        settle_ms: 120,
        screen_changed: null,
        image: { width: 1280, height: 800 },
        image_bytes: 75_000,
      },
    },
    {
      type: 'model_call',
      ...at,
      data: {
        purpose: 'act',
        usage: { requests: 1, inputTokens: 2000, outputTokens: 80, durationMs: 450 },
        error_code: null,
      },
    },
    { type: 'tool_call', ...at, data: { name: 'computer_use', args: { observation, task_memory: memory } } },
    {
      type: 'action',
      ...at,
      data: { action, description: String(action.action), status: 'executed', error: null },
    },
  ];
}
