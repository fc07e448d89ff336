/**
 * The replay matrix (#40), `pnpm bench matrix`: apps of five toolkits (Chromium, Tk, GTK 4, Qt 5,
 * GTK 3), each recorded by input as a person would and reflected without a model, replayed with
 * new values in auto (`--max-model-calls 0`) and in trace under each condition (as recorded, moved,
 * dark, 1.25x, 1920x1080, a smaller window, German, an app that drops a value). The outcome is read
 * outside mime (the app's saved file or state). Prints the table; exits non-zero only on a false
 * success. `MIME_MATRIX_APPS=tk,qt` and `MIME_MATRIX_CONDITIONS=dark,moved` narrow it (by words of
 * the names). Long (each replay starts its own desktop): run it alone, with `nice`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONDITIONS,
  type MatrixResult,
  matrixTable,
  recordAndReflect,
  replayCell,
} from '@mime-desktop/test-support/matrix';
import { MATRIX_APPS } from '@mime-desktop/test-support/matrix-apps';

/** Whether `name` is chosen by a comma-separated list of words (`tk` chooses "Tk form", not "GTK 4 form"). */
const wanted = (words: string | undefined, name: string) =>
  !words ||
  words.split(',').some((w) => new RegExp(`\\b${w.trim().replace(/[^\w ]/g, '')}\\b`, 'i').test(name));

const results: MatrixResult[] = [];
const skipped: string[] = [];
const started = performance.now();
const root = await mkdtemp(join(tmpdir(), 'mime-bench-matrix-'));
try {
  for (const app of MATRIX_APPS.filter((a) => wanted(process.env.MIME_MATRIX_APPS, a.name))) {
    const missing = await app.missing();
    if (missing) {
      skipped.push(`${app.name}: ${missing}`);
      continue;
    }
    const work = await mkdtemp(join(root, 'app-'));
    let workflow: string;
    try {
      workflow = await recordAndReflect(app, join(work, 'home'), work);
    } catch (error) {
      skipped.push(`${app.name}: recording failed: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    for (const condition of CONDITIONS.filter((c) => wanted(process.env.MIME_MATRIX_CONDITIONS, c.name))) {
      for (const mode of ['auto', 'trace'] as const) {
        const result = await replayCell(app, workflow, condition, mode, work).catch(
          (error: Error): MatrixResult => ({
            app: app.name,
            condition: condition.name,
            mode,
            verdict: 'n/a',
            rungs: '',
            reads: '',
            outcomeMs: null,
            saw: '',
            reason: `harness: ${error.message.split('\n')[0]}`,
            runDir: null,
            wallMs: 0,
          }),
        );
        results.push(result);
        process.stderr.write(
          `${result.app} · ${result.condition} · ${mode}: ${result.verdict}${result.reason ? ` (${result.reason.slice(0, 160)})` : ''}${result.runDir ? ` ${result.runDir}` : ''}\n`,
        );
      }
    }
  }
} finally {
  if (!process.env.MIME_MATRIX_KEEP) await rm(root, { recursive: true, force: true });
}

process.stdout.write(`matrix (${((performance.now() - started) / 60_000).toFixed(1)} min)\n\n`);
process.stdout.write(`${matrixTable(results)}\n\n`);
const count = (v: MatrixResult['verdict']) => results.filter((r) => r.verdict === v).length;
process.stdout.write(
  `true success ${count('true success')}, honest divergence ${count('honest divergence')}, false success ${count('FALSE SUCCESS')}, false divergence ${count('false divergence')}, n/a ${count('n/a')}\n`,
);
for (const line of skipped) process.stdout.write(`skipped ${line}\n`);
process.exitCode = count('FALSE SUCCESS') > 0 ? 1 : 0;
