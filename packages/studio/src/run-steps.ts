/**
 * A finished run read as a trace: its turns in order (one capture of the screen and what was done on
 * it each), with the screen before and after each, for the run page's step list and large view.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  formatPlace,
  formatSubtask,
  pngSize,
  RUN_FILES,
  RunEvent,
  readJsonlFile,
  readPngInside,
  type Size,
  type TypedRunEvent,
  typedRunEvent,
} from '@mime-desktop/schema';

/** One turn of a run as the trace shows it. */
export interface RunStep {
  /** "Subtask 1 · Step 2" (a workflow step) or "Subtask 1 · Turn 3" (the agent's turn). */
  label: string;
  /** What was done: the action's words, or the reason nothing was. */
  action: string;
  /** `diverged`: the screen was not as recorded; `error`: the action failed. */
  status: 'ok' | 'diverged' | 'error';
  /** Frames in the run folder; null when the run kept none. */
  before: string | null;
  after: string | null;
}

/** A run read as a trace: its turns, and the screen its frames show. */
export interface RunTrace {
  /**
   * The run's screen (its frames' shape, so the page keeps each picture's place before its pixels
   * come): from `run_start`, else (older runs) the first kept frame's header; null with no frame.
   */
  screen: Size | null;
  steps: RunStep[];
}

interface Turn {
  subtask: number;
  iteration: number;
  stepI: number | null;
  action: string;
  status: RunStep['status'];
  frame: string | null;
}

/** What `event` says of its turn: its frame, its step, what was done, how it went. */
function take(turn: Turn, event: TypedRunEvent): void {
  if (event.type === 'capture') turn.frame ??= event.data.screenshot;
  else if (event.type === 'step') {
    turn.stepI = event.data.step_i;
    turn.frame ??= event.data.screenshot;
    turn.action = event.data.description || event.data.reason;
  } else if (event.type === 'action') {
    turn.action ||= event.data.description;
    if (event.data.error) turn.status = 'error';
  } else if (event.type === 'divergence') turn.status = 'diverged';
  else if (event.type === 'error' && turn.status === 'ok') turn.status = 'error';
}

/** The run in `dir` as a trace: its turns in the order they were taken, and its screen. */
export async function readRunTrace(dir: string): Promise<RunTrace> {
  const files = new Set(await readdir(dir));
  const turns: Turn[] = [];
  const byKey = new Map<string, Turn>();
  let screen: RunTrace['screen'] = null;
  for (const { value } of await readJsonlFile(join(dir, RUN_FILES.events))) {
    const parsed = RunEvent.safeParse(value);
    const event = parsed.success ? typedRunEvent(parsed.data) : null;
    if (event?.type === 'run_start') screen = event.data.screen;
    if (!event || event.subtask_i === null || event.iteration === null) continue;
    const key = `${event.subtask_i}:${event.iteration}`;
    let turn = byKey.get(key);
    if (!turn) {
      if (event.type !== 'capture' && event.type !== 'step') continue;
      turn = {
        subtask: event.subtask_i,
        iteration: event.iteration,
        stepI: null,
        action: '',
        status: 'ok',
        frame: null,
      };
      byKey.set(key, turn);
      turns.push(turn);
    }
    take(turn, event);
  }
  const kept = (frame: string | null) => (frame !== null && files.has(frame) ? frame : null);
  const final = files.has(RUN_FILES.finalFrame) ? RUN_FILES.finalFrame : null;
  const first = turns.map((turn) => kept(turn.frame)).find(Boolean) ?? final;
  screen ??= first ? await frameSize(dir, first) : null;
  const steps = turns.map((turn, n) => {
    const next = turns.slice(n + 1).find((t) => kept(t.frame));
    return {
      label:
        turn.stepI === null
          ? `${formatSubtask(turn.subtask, { title: true })} · Turn ${turn.iteration + 1}`
          : formatPlace(turn.subtask, turn.stepI),
      action: turn.action || 'no action',
      status: turn.status,
      before: kept(turn.frame),
      after: next ? kept(next.frame) : final,
    };
  });
  return { screen, steps };
}

/** The size of picture `path` of the run in `dir` by its PNG header; null when it is not a readable PNG. */
export async function frameSize(dir: string, path: string): Promise<Size | null> {
  const bytes = await readPngInside(dir, path, 'the run screenshot').catch(() => null);
  return bytes && pngSize(bytes);
}
