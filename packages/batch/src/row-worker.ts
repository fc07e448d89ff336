/**
 * The process a batch worker replays one row in, on its private display (native input and capture
 * keep their first X connection for the life of a process, so each display needs its own). Reads its
 * job as JSON on stdin, replays with the workflow's setup run (the display is its own), and writes
 * the outcome as one JSON line on stdout. Sensitive values come through the environment only.
 */
import { replay } from '@mime-desktop/replay';
import type { RowJob, RowJobResult } from './row-job.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const job = JSON.parse(await readStdin()) as RowJob;
let result: RowJobResult;
try {
  const run = await replay(job.workflow, {
    ...job.options,
    params: job.params,
    runsDir: job.runsDir,
    runSetup: true,
  });
  result = { ok: true, dir: run.dir, summary: run.summary };
} catch (error) {
  const code = (error as { code?: unknown }).code;
  result = {
    ok: false,
    code: typeof code === 'string' && code.startsWith('MIME_') ? code : 'MIME_INTERNAL',
    message: error instanceof Error ? error.message : String(error),
  };
}
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
