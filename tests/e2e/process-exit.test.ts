/**
 * A replay's process ends when its run ends: within a second of printing its summary, whichever way
 * the run stopped (the wall-time budget inside a retry wait of a day, the model-call budget, an
 * abort during a model call that never answers, a model that keeps failing). Nothing it started (a
 * retry timer, a request, a worker) keeps it alive.
 */
import { startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';
import { copyWorkflow } from '../support/e2e-rig.ts';
import { useModelRig } from '../support/model-rig.ts';

const rig = useModelRig();

/** Runs an agent replay; resolves with its exit code, summary and the ms from its summary to its exit. */
async function replay(extra: string[], env: Record<string, string> = {}, during?: () => Promise<void>) {
  const dir = await copyWorkflow('play-song');
  const mime = startMime(
    ['replay', dir, '--mode', 'agent', '--param', 'song_name=Faint', '--json', ...extra],
    { env: { ...rig.env(), MIME_MODEL_TIMEOUT_MS: '600000', ...env } },
  );
  await during?.();
  // The summary is the JSON printed last, and the only thing on stdout: its first line marks its time.
  await mime.waitForStdoutLine(60_000);
  const printed = performance.now();
  const result = await mime.done;
  const afterSummary = performance.now() - printed;
  return {
    ...result,
    afterSummary,
    summary: JSON.parse(result.stdout) as { outcome: string; code?: string },
  };
}

/** Resolves once the fake server has received `n` chat requests. */
async function requestsReached(n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (rig.server.chatRequests().length < n) {
    if (Date.now() > deadline)
      throw new Error(`the model got ${rig.server.chatRequests().length} of ${n} requests`);
    await sleep(20);
  }
}

describe('a replay process ends with its run', () => {
  it('at the wall-time budget, while the SDK waits a day to retry a 429', async () => {
    rig.server.setHandler(() => ({ type: 'error', status: 429, headers: { 'retry-after': '86400' } }));
    const run = await replay(['--max-duration', '3'], { MIME_MODEL_MAX_RETRIES: '3' });
    expect(run.exitCode).toBe(1);
    expect(run.summary.code).toBe('MIME_BUDGET_WALL_TIME');
    expect(run.afterSummary).toBeLessThan(1000);
  });

  it('at the model-call budget', async () => {
    rig.useModel();
    const run = await replay(['--max-model-calls', '1']);
    expect(run.exitCode).toBe(1);
    expect(run.summary.code).toBe('MIME_BUDGET_MODEL_CALLS');
    expect(run.afterSummary).toBeLessThan(1000);
  });

  it('when aborted during a model call that never answers', async () => {
    const before = rig.server.chatRequests().length;
    rig.server.setHandler(() => ({ type: 'text', content: '', delayMs: 3_600_000 }));
    const dir = await copyWorkflow('play-song');
    const mime = startMime(['replay', dir, '--mode', 'agent', '--param', 'song_name=Faint', '--json'], {
      env: { ...rig.env(), MIME_MODEL_TIMEOUT_MS: '600000' },
    });
    await requestsReached(before + 1);
    mime.kill('SIGINT');
    await mime.waitForStdoutLine(30_000);
    const printed = performance.now();
    const result = await mime.done;
    expect(result.exitCode).toBe(130);
    expect(JSON.parse(result.stdout).outcome).toBe('aborted');
    expect(performance.now() - printed).toBeLessThan(1000);
  });

  it('when the model keeps failing', async () => {
    rig.server.setHandler(() => ({ type: 'error', status: 500, message: 'overloaded' }));
    const run = await replay([], { MIME_MODEL_MAX_RETRIES: '1' });
    expect(run.exitCode).toBe(1);
    expect(run.summary.code).toMatch(/^MIME_MODEL_/);
    expect(run.afterSummary).toBeLessThan(1000);
  });
});
