/**
 * The cache of a recorded fixture workflow, made once and handed to every copy. `mime reflect`
 * reads ahead what replay's checks OCR on the recorded frames into the workflow's `.cache/ocr/`
 * (recorded-ocr.ts), and encodes the recorded frames a report shows into `.cache/report/`
 * (prepare-recorded.ts); the fixtures are committed without it, so every copy's first replay read the
 * same crops again (a second of OCR a replay, and more on a busy machine) and a batch row, whose runs
 * go outside the workflow, read them at every row. Here `prepareRecorded` makes them once per
 * fixture content and OCR engine into `node_modules/.cache/mime-fixture-ocr/<name>-<hash>`, through a
 * folder renamed into place when done (two test files may prepare it at once; a run cut short leaves
 * no half cache), and each copy gets the entries. An entry is named by the crop's pixels and the
 * engine, so a copy whose schema a test edited reads, at worst, what its entries do not hold.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS_CACHE_FOLDER } from '@mime-desktop/schema';
import { ocrEngineVersion } from '@mime-desktop/vision';
import { REPO_ROOT } from './run-mime.ts';

const PREPARED = join(REPO_ROOT, 'node_modules', '.cache', 'mime-fixture-ocr');

/** Preparations under way in this process, by folder: a file's tests copying at once prepare once. */
const preparing = new Map<string, Promise<string | null>>();

/** What a prepared copy holds: a change here names new copies. */
const PREPARED_PARTS = 'ocr, report images';

/** The SHA-256 of what is prepared, the OCR engine's version and every file of `dir` (names and bytes), in name order. */
async function hashOf(dir: string): Promise<string> {
  const hash = createHash('sha256').update(`${PREPARED_PARTS}\n${ocrEngineVersion()}\n`);
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of names) hash.update(`${file.slice(dir.length)}\n`).update(await readFile(file));
  return hash.digest('hex').slice(0, 16);
}

/** Reads the recorded checks of a copy of `fixture` into a folder renamed to `prepared`. */
async function prepare(fixture: string, prepared: string): Promise<void> {
  await mkdir(PREPARED, { recursive: true });
  const work = await mkdtemp(`${prepared}.part-`);
  try {
    await cp(fixture, work, { recursive: true });
    const { OcrEngine, prepareRecorded } = await import('@mime-desktop/replay');
    const ocr = new OcrEngine();
    try {
      await prepareRecorded(work, ocr);
    } finally {
      await ocr.close();
    }
    await rename(work, prepared).catch((error: NodeJS.ErrnoException) => {
      // Another process prepared it first: theirs is as good.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The prepared copy of `fixtures/workflows/<name>` (prepared now if not yet), or null for one without a recording. */
function preparedCopy(name: string): Promise<string | null> {
  const fixture = join(REPO_ROOT, 'fixtures', 'workflows', name);
  let found = preparing.get(fixture);
  if (!found) {
    found = (async () => {
      if (!existsSync(join(fixture, 'screenshots'))) return null;
      const prepared = join(PREPARED, `${name}-${await hashOf(fixture)}`);
      if (!existsSync(prepared)) await prepare(fixture, prepared);
      return prepared;
    })();
    preparing.set(fixture, found);
  }
  return found;
}

/**
 * Puts the OCR cache of `fixtures/workflows/<name>`, read once, into `workflow` (a fresh copy of it),
 * as `mime reflect` leaves it in a workflow it made. Nothing for a fixture without a recording.
 */
export async function seedFixtureOcr(name: string, workflow: string): Promise<void> {
  const prepared = await preparedCopy(name);
  const cache = prepared && join(prepared, CHECKS_CACHE_FOLDER);
  if (cache && existsSync(cache)) {
    await cp(cache, join(workflow, CHECKS_CACHE_FOLDER), { recursive: true });
  }
}
