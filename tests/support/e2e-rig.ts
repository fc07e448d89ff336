/**
 * The one e2e rig: a private desktop for a describe block, temp folders cleaned up after the test
 * that made them, copies of the fixture workflows, and a run folder's files read back.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@mime-desktop/schema';
import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished } from 'vitest';
import { type DesktopHarness, type DesktopHarnessOptions, startDesktopHarness } from './desktop-harness.ts';
import { seedFixtureOcr } from './fixture-ocr.ts';
import { REPO_ROOT } from './run-mime.ts';

/**
 * A desktop (Xvfb, the demo app unless told otherwise) for the tests of the enclosing describe block
 * (or file): started before the first, stopped after the last; with `each`, a fresh one for every
 * test. Returns its getter.
 */
export function useDesktop(options: DesktopHarnessOptions = {}, { each = false } = {}): () => DesktopHarness {
  let desktop: DesktopHarness | undefined;
  (each ? beforeEach : beforeAll)(async () => {
    desktop = await startDesktopHarness({ keepDisplayUntilExit: false, ...options });
  }, 60_000);
  (each ? afterEach : afterAll)(async () => {
    await desktop?.stop();
    desktop = undefined;
  });
  return () => {
    if (!desktop) throw new Error('the desktop is not started (use it inside a test)');
    return desktop;
  };
}

/** Runs `use` on a desktop of its own, started for it and stopped after it (a screen size, a theme). */
export async function withDesktop<T>(
  options: DesktopHarnessOptions,
  use: (desktop: DesktopHarness) => Promise<T>,
): Promise<T> {
  const desktop = await startDesktopHarness({ keepDisplayUntilExit: false, ...options });
  try {
    return await use(desktop);
  } finally {
    await desktop.stop();
  }
}

/** A new temp folder, removed when the current test ends (call it inside a test). */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh temp folder for every test of the block (or file), removed after it; returns its getter. */
export function useTestDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error('the test folder exists only while a test runs');
    return dir;
  };
}

/**
 * Temp folders for a describe block (or file) set up in `beforeAll`: each made with the returned
 * function is removed after the block's last test.
 */
export function useTempDirs(): (prefix: string) => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (prefix) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** Copies `fixtures/<path>` (a folder or a file) to `to`; returns `to`. */
export async function copyFixture(path: string, to: string): Promise<string> {
  await cp(join(REPO_ROOT, 'fixtures', path), to, { recursive: true });
  return to;
}

/**
 * A copy of `fixtures/workflows/<name>` as `<folder>/<as>` (its runs are written inside it): the
 * folder is `into`, else a temp folder of the current test; `edit` changes its schema.json first.
 * A recorded fixture comes with the cache `mime reflect` would have left in it (fixture-ocr.ts,
 * read once for all copies); `ocrCache: false` copies the fixture as committed, without it.
 */
export async function copyWorkflow(
  name: string,
  edit?: (schema: any) => void,
  { as = name, into, ocrCache = true }: { as?: string; into?: string; ocrCache?: boolean } = {},
): Promise<string> {
  const dir = await copyFixture(join('workflows', name), join(into ?? (await tempDir(`mime-${name}-`)), as));
  if (ocrCache) await seedFixtureOcr(name, dir);
  if (edit) {
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    edit(schema);
    await writeFile(join(dir, 'schema.json'), `${JSON.stringify(schema, null, 2)}\n`);
  }
  return dir;
}

/** The run folders of a workflow copy, oldest first. */
export async function runsOf(workflow: string): Promise<string[]> {
  return (await readdir(join(workflow, '.replay'))).sort().map((run) => join(workflow, '.replay', run));
}

/** A run folder's events, in order. */
export async function readEvents(runDir: string): Promise<RunEvent[]> {
  return (await readFile(join(runDir, 'events.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunEvent);
}

/** The data of the events of one type, in order (untyped, for checks). */
export function dataOf(events: readonly RunEvent[], type: RunEvent['type']): any[] {
  return events.filter((e) => e.type === type).map((e) => e.data);
}
