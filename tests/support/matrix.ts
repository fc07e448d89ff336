/**
 * The replay matrix (#40): apps of different toolkits, each recorded by input once, reflected
 * without a model, then replayed with new values in auto (`--max-model-calls 0`) and in trace under
 * changed conditions. Each run's outcome is read OUTSIDE mime (the app's saved file or state) and
 * classified against what mime said. Used by `pnpm bench matrix` and by the CI subset
 * (tests/e2e/replay-matrix.test.ts); the apps are in `matrix-apps.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DesktopHarness, DesktopHarnessOptions } from './desktop-harness.ts';
import { readEvents, runsOf, withDesktop } from './e2e-rig.ts';
import { runMime } from './run-mime.ts';

/** A changed condition of the replay (each field a change from the recording). */
export interface Condition {
  name: string;
  /** The screen, when not the recorded 1280x800. */
  screen?: { width: number; height: number };
  /** The window 150 px right and 90 px down of where it was. */
  moved?: boolean;
  dark?: boolean;
  /** UI scale factor. */
  scale?: number;
  /** The window smaller than recorded (about 3/4 of its size). */
  smaller?: boolean;
  /** The UI in German. */
  german?: boolean;
  /** The app variant that drops the City value (or the last value) after submit. */
  dropsValue?: boolean;
}

export const CONDITIONS: readonly Condition[] = [
  { name: 'as recorded' },
  { name: 'moved', moved: true },
  { name: 'dark', dark: true },
  { name: 'scale 1.25', scale: 1.25 },
  { name: '1920x1080', screen: { width: 1920, height: 1080 } },
  { name: 'smaller window', smaller: true },
  { name: 'German', german: true },
  { name: 'drops a value', dropsValue: true },
];

/** The app, started for one replay under a condition. */
export interface StartedApp {
  /** The environment the replay runs in (the display, the app's config). */
  env: NodeJS.ProcessEnv;
  /** Reads the app's outcome outside mime: whether it holds exactly `values`, and what it holds. */
  check(values: readonly string[]): Promise<{ ok: boolean; saw: string }>;
  stop(): Promise<void>;
}

/** One app of the matrix. */
export interface MatrixApp {
  name: string;
  /** Why it cannot run on this machine, or null. */
  missing(): Promise<string | null>;
  /** Why a condition does not apply to this app, or null. */
  notApplicable(condition: Condition): string | null;
  /** The desktop it runs on under a condition (screen size; Chromium's page and scale). */
  desktop(condition: Condition): DesktopHarnessOptions;
  /** Records the task by input into `<home>/recordings/`; the session id. */
  record(desktop: DesktopHarness, home: string, work: string): Promise<string>;
  /** The values replayed, in the order the task types them. */
  values: readonly string[];
  /** Starts the app (or readies it) for one replay. */
  start(desktop: DesktopHarness, condition: Condition, work: string): Promise<StartedApp>;
}

export type Verdict = 'true success' | 'honest divergence' | 'FALSE SUCCESS' | 'false divergence' | 'n/a';

/** One replay of the matrix and how it ended. */
export interface MatrixResult {
  app: string;
  condition: string;
  mode: 'auto' | 'trace';
  verdict: Verdict;
  /** The rungs that found the steps' targets, with counts (`accessibility×3 template×1`). */
  rungs: string;
  /** How each subtask's outcome was read (`app`, `ocr`, `pixels`). */
  reads: string;
  /** How long the outcome checks took after their subtask's last step, ms (the longest). */
  outcomeMs: number | null;
  /** What the app holds, read outside mime. */
  saw: string;
  /** mime's code and reason when it did not succeed (or the note of an n/a cell). */
  reason: string;
  runDir: string | null;
  wallMs: number;
}

/** What mime said against what the app holds. */
export function classify(mimeSucceeded: boolean, appHolds: boolean): Verdict {
  if (mimeSucceeded) return appHolds ? 'true success' : 'FALSE SUCCESS';
  return appHolds ? 'false divergence' : 'honest divergence';
}

/** Records `app` once, reflects it with `--no-model`; the workflow folder. */
export async function recordAndReflect(app: MatrixApp, home: string, work: string): Promise<string> {
  const session = await withDesktop({ ...app.desktop(CONDITIONS[0] as Condition) }, (desktop) =>
    app.record(desktop, home, work),
  );
  const reflected = await runMime(['reflect', '--session', session, '--home', home, '--no-model']);
  if (reflected.exitCode !== 0) throw new Error(`${app.name}: reflect failed: ${reflected.stderr}`);
  return join(home, 'workflows', session);
}

const tally = (items: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([k, n]) => (n > 1 ? `${k}×${n}` : k)).join(' ') || '-';
};

/** The line of a crashed process's stderr that says what went wrong. */
const crashLine = (stderr: string) => {
  const lines = stderr.trim().split('\n');
  return (lines.find((l) => /Error|error:/.test(l)) ?? lines.at(-1) ?? '').trim();
};

/** Replays `workflow` once on `app` under `condition` in `mode`, the outcome read outside mime. */
export async function replayCell(
  app: MatrixApp,
  workflow: string,
  condition: Condition,
  mode: 'auto' | 'trace',
  work: string,
): Promise<MatrixResult> {
  const cell = { app: app.name, condition: condition.name, mode };
  const na = app.notApplicable(condition);
  if (na) {
    const empty = { rungs: '', reads: '', outcomeMs: null, saw: '', runDir: null, wallMs: 0 };
    return { ...cell, ...empty, verdict: 'n/a', reason: na };
  }
  const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
  const names: string[] = schema.task_params.map((p: { name: string }) => p.name);
  const params = names.flatMap((name, i) => ['--param', `${name}=${app.values[i] ?? ''}`]);
  const before = new Set(await runsOf(workflow).catch(() => [] as string[]));
  return withDesktop(app.desktop(condition), async (desktop) => {
    const started = await app.start(desktop, condition, work);
    try {
      const t0 = performance.now();
      const args = ['replay', workflow, '--mode', mode, '--max-model-calls', '0', '--json', ...params];
      const result = await runMime(args, { env: started.env });
      const wallMs = Math.round(performance.now() - t0);
      const held = await started.check(app.values);
      const runDir = (await runsOf(workflow).catch(() => [] as string[])).find((r) => !before.has(r)) ?? null;
      const events = runDir ? await readEvents(runDir).catch(() => []) : [];
      const data = (type: string) => events.filter((e) => e.type === type).map((e) => e.data as any);
      const outcomes = data('verify').filter((v) => v.check === 'subtask_outcome');
      const end = data('run_end')[0];
      const succeeded = result.exitCode === 0 && end?.outcome === 'success';
      const tookMs = outcomes.map((v) => v.took_ms).filter((n): n is number => typeof n === 'number');
      const divergence = data('divergence').at(-1);
      const reason = succeeded
        ? ''
        : end
          ? `${end.code}: ${end.reason ?? divergence?.reason ?? ''}`
          : `no run_end (exit ${result.exitCode}): ${crashLine(result.stderr)}`;
      if (!end && runDir) await writeFile(join(runDir, 'matrix-stderr.txt'), result.stderr);
      return {
        ...cell,
        verdict: classify(succeeded, held.ok),
        rungs: tally(data('step').map((s) => s.rung ?? s.executed_by ?? '?')),
        reads: tally(outcomes.map((v) => v.read ?? 'pixels')),
        outcomeMs: tookMs.length > 0 ? Math.max(...tookMs) : null,
        saw: held.saw,
        reason,
        runDir,
        wallMs,
      };
    } finally {
      await started.stop();
    }
  });
}

/** The matrix as a Markdown table (app x condition x mode). */
export function matrixTable(results: readonly MatrixResult[]): string {
  const rows = results.map((r) =>
    [
      r.app,
      r.condition,
      r.mode,
      r.verdict,
      r.rungs,
      r.reads,
      r.outcomeMs === null ? '-' : `${r.outcomeMs} ms`,
      r.verdict === 'n/a' ? '' : `${(r.wallMs / 1000).toFixed(1)} s`,
      r.verdict === 'true success' ? '' : r.reason.replaceAll('|', '\\|').slice(0, 140),
    ].join(' | '),
  );
  return [
    '| app | condition | mode | result | rungs | outcome read | outcome check | run | reason |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}
