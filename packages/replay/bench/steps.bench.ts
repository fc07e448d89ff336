/**
 * Deterministic replay against the speed of the screen. The reflected demo workflow (search a song,
 * press Enter, play it, read what plays) is replayed by the installed CLI (packed, plain node) in
 * trace and auto mode on the unchanged demo app; from each run's events: the time from the process
 * start to its first step, and each input step's time (one step event to the next: the action, the
 * check after it, waiting for the next recorded screen and checking it) for the click, the typing
 * and the Enter (the last click is followed by an OCR extract, not an input step). The reference is
 * an xdotool script doing the same actions on the same display in the same run, each followed by a
 * two-frame wait (33 ms); the ratio of the medians is what a deterministic step costs beyond raw
 * input. The demo app is Chromium, which mime types into without pauses (see TOOLKIT_TYPING in
 * os-io: a GTK app gets 10 ms a key and 200 ms after a typed text before the next key).
 * Run from the repository root: `pnpm bench replay` (it builds and packs first, about 30 s).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { centerOf, DEMO_LAYOUT, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { CLEAN_ENV, installInProject, packMime } from '@mime-desktop/test-support/packed-mime';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';

const RUNS = 5;
/** The input steps timed, in the workflow's order. */
const STEP_KINDS = ['click', 'type', 'key'] as const;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const root = await mkdtemp(join(tmpdir(), 'mime-bench-steps-'));
await installInProject(join(root, 'project'), await packMime(join(root, 'packs')));
const cli = join(root, 'project', 'node_modules', '@mime-desktop', 'cli', 'dist', 'main.js');
const desktop = await startDesktopHarness({ keepDisplayUntilExit: false });

/** One replay by the installed CLI: ms to its first step, and each input step's ms. */
async function replayOnce(mode: 'trace' | 'auto'): Promise<{ firstStep: number; steps: number[] }> {
  await desktop.resetApp();
  const dir = join(await mkdtemp(join(root, `${mode}-`)), 'play-song');
  await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), dir, { recursive: true });
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const args = [cli, 'replay', dir, '--mode', mode, '--param', 'song_name=Faint'];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...CLEAN_ENV, DISPLAY: desktop.display },
      stdio: 'ignore',
    });
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`mime replay --mode ${mode} exited with ${code}`);
  const [run] = await readdir(join(dir, '.replay'));
  const times = (await readFile(join(dir, '.replay', run as string, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { time: string; type: string })
    .filter((e) => e.type === 'step')
    .map((e) => Date.parse(e.time));
  const steps = times.slice(1).map((t, k) => t - (times[k] ?? t));
  return { firstStep: (times[0] ?? Number.NaN) - started, steps: steps.slice(0, STEP_KINDS.length) };
}

/**
 * The same input steps by xdotool, each followed by a two-frame wait: each one's ms, or null when
 * the search did not reach the app.
 */
async function xdotoolOnce(): Promise<number[] | null> {
  await desktop.resetApp();
  const search = centerOf(DEMO_LAYOUT.search);
  const actions = [
    ['mousemove', String(search.x), String(search.y), 'click', '1'],
    ['type', '--delay', '10', 'Faint'],
    ['key', 'Return'],
  ];
  const times: number[] = [];
  for (const args of actions) {
    const started = performance.now();
    await execa('xdotool', args, { env: { DISPLAY: desktop.display } });
    await new Promise((resolve) => setTimeout(resolve, 33));
    times.push(performance.now() - started);
  }
  const state = await desktop.waitForAppState((s) => s.results.length > 0, 2000).catch(() => null);
  return state?.search === 'Faint' ? times : null;
}

/** Reference runs done again: xdotool does not wait for anything, and its click can miss the page. */
let referenceRetries = 0;

/** The xdotool reference, done again (twice at most) when its search did not reach the app. */
async function xdotoolReference(): Promise<number[]> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const times = await xdotoolOnce();
    if (times) return times;
    referenceRetries += 1;
  }
  throw new Error('the xdotool reference did not search for Faint in 3 attempts');
}

try {
  const results: Record<'trace' | 'auto', { firstStep: number[]; steps: number[][] }> = {
    trace: { firstStep: [], steps: [] },
    auto: { firstStep: [], steps: [] },
  };
  const reference: number[][] = [];
  for (let run = 0; run < RUNS; run += 1) {
    // Each mode goes first in every other round, so neither always runs on the app the other warmed.
    const modes = run % 2 === 0 ? (['trace', 'auto'] as const) : (['auto', 'trace'] as const);
    for (const mode of modes) {
      const { firstStep, steps } = await replayOnce(mode);
      results[mode].firstStep.push(firstStep);
      results[mode].steps.push(steps);
    }
    reference.push(await xdotoolReference());
  }
  const column = (rows: number[][], k: number) => rows.map((r) => r[k] ?? Number.NaN);
  const ms = (value: number) => `${Math.round(value)} ms`;
  const kinds = (rows: number[][]) => STEP_KINDS.map((_, k) => ms(median(column(rows, k)))).join(' | ');
  const ref = median(reference.flat());
  const out = [
    `replay steps (demo workflow, unchanged app, installed CLI, ${RUNS} runs a mode)`,
    `| mode | first step | ${STEP_KINDS.join(' | ')} | all steps | ratio to xdotool | beyond xdotool |`,
    `|${' --- |'.repeat(STEP_KINDS.length + 5)}`,
    `| xdotool + 33 ms | | ${kinds(reference)} | ${ms(ref)} | 1.0x | |`,
  ];
  for (const [mode, { firstStep, steps }] of Object.entries(results)) {
    const step = median(steps.flat());
    out.push(
      `| ${mode} | ${ms(median(firstStep))} | ${kinds(steps)} | ${ms(step)} | ${(step / ref).toFixed(2)}x | ${ms(step - ref)} |`,
    );
  }
  if (referenceRetries > 0) {
    out.push(
      `(${referenceRetries} xdotool reference run(s) done again: the typed search did not reach the app)`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  await desktop.stop();
  await rm(root, { recursive: true, force: true });
}
