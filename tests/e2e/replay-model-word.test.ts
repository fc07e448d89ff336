/**
 * The model's word checked like a step, and a run that forbids the model (issue 40), on the demo app
 * with its Play buttons drawn differently (`?play=Listen`: the recorded target is gone, so auto hands
 * the play subtask to the model) and through the real `mime replay`:
 * - a model that plays nothing and claims the song it was asked for never ends in success, in the
 *   agent mode nor in an auto hand-over; the run's headline names the divergence first;
 * - a model that plays the song and reads it succeeds, its claims verified on the screen;
 * - `--max-model-calls 0` never sends the model a request: auto stops at the divergence with
 *   MIME_REPLAY_DIVERGENCE, and on a moved and resized app it re-finds every target and succeeds.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, dataOf, readEvents, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const rig = useModelRig({ query: 'play=Listen' });

async function replay(flags: string[], desktop: DesktopHarness = rig.desktop) {
  await desktop.resetApp();
  const workflow = await copyWorkflow('play-song-recorded');
  const { server } = rig;
  const before = server.requests.length;
  const env = { ...desktop.env, MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' };
  const result = await runMime(['replay', workflow, '--param', 'song_name=Faint', '--json', ...flags], {
    env,
  });
  const summary = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
  const events = summary?.dir ? await readEvents(summary.dir) : [];
  const claims = dataOf(events, 'claim').map((c) => `${c.claim} ${c.verdict}`);
  const requests = server.requests.length - before;
  return { result, summary, events, claims, requests, state: await desktop.readAppState() };
}

describe("the model's word", () => {
  it('that it played and read a song it never played is refused, in the agent mode and in an auto hand-over', async () => {
    const model = rig.useModel({ faults: { claimsWithoutActing: true } });
    const debug = () => JSON.stringify(model.turns.slice(-4), null, 1);

    const agent = await replay(['--mode', 'agent', '--max-iterations', '7', '--max-replans', '0']);
    expect(agent.result.exitCode, `${agent.result.stderr}\n${debug()}`).toBe(1);
    expect(agent.state.playing).toBe('');
    expect(agent.summary).toMatchObject({ outcome: 'failed', code: 'MIME_BUDGET_ITERATIONS', extracts: {} });
    // The search was done and checked; the value read is in the search field (so it stands), but
    // the outcome the subtask names (Faint playing) is shown nowhere new: every done is refused.
    expect(agent.claims.slice(0, 2)).toEqual(['done verified', 'extract verified']);
    expect(agent.claims.length).toBeGreaterThan(3);
    expect(new Set(agent.claims.slice(2))).toEqual(new Set(['done refused']));
    expect(agent.result.stderr).toContain("! the model's done refused: the expected outcome names song_name");
    expect(model.turns.at(-1)?.prompt).toContain('refused, the subtask is not done');

    const auto = await replay(['--max-iterations', '3', '--max-replans', '0']);
    expect(auto.result.exitCode, `${auto.result.stderr}\n${debug()}`).toBe(1);
    expect(auto.state.playing).toBe('');
    expect(dataOf(auto.events, 'handover')).toHaveLength(1);
    // Where the recording shows the value, the screen shows "nothing": the value is refused.
    expect(auto.claims).toEqual(['extract refused', 'extract refused']);
    expect(dataOf(auto.events, 'claim')[0].detail).toMatch(
      /^the screen shows "nothing" after "Now playing:", where the recording shows this value, not "Faint"$/,
    );
    // The headline names the divergence that handed the subtask over, then the budget.
    expect(auto.summary.code).toBe('MIME_BUDGET_ITERATIONS');
    expect(auto.summary.reason).toMatch(
      /^step 4 of subtask 2 diverged: the recorded target was not found .*; the model took over, then subtask 2 used all its iterations/,
    );
    expect(auto.result.stderr).toMatch(
      /✗ failed \[MIME_BUDGET_ITERATIONS\] .*: step 4 of subtask 2 diverged/,
    );
    const page = await readFile(join(auto.summary.dir, 'report.html'), 'utf8');
    // The report says it cause first: the divergence in one line, then the budget as what followed.
    expect(page).toMatch(/<p class="cause-headline" id="cause-headline">Step 4 of subtask 2 diverged: /);
    expect(page).toMatch(
      /<strong>Likely cause:<\/strong> The model took over there, then subtask 2 used all its iterations/,
    );
    expect(page).toContain('<span class="label">Value refused</span> (read from the app): the screen shows');
  }, 240_000);

  it('that it played and read the song it did play is verified, in the agent mode and in an auto hand-over', async () => {
    const model = rig.useModel();
    const debug = () => JSON.stringify(model.turns.slice(-4), null, 1);
    const agent = await replay(['--mode', 'agent']);
    expect(agent.result.exitCode, `${agent.result.stderr}\n${debug()}`).toBe(0);
    expect(agent.state.playing).toBe('Faint');
    expect(agent.summary.extracts).toEqual({ song_now_playing: 'Faint' });
    expect(agent.claims).toEqual(['done verified', 'extract verified', 'done verified']);

    const auto = await replay([]);
    expect(auto.result.exitCode, `${auto.result.stderr}\n${debug()}`).toBe(0);
    expect(auto.state.playing).toBe('Faint');
    expect(auto.summary.extracts).toEqual({ song_now_playing: 'Faint' });
    expect(auto.claims).toEqual(['extract verified', 'done verified']);
    expect(auto.result.stderr).toContain('✓ the subtask verified (read from the app)');
  }, 240_000);
});

describe('--max-model-calls 0', () => {
  it('stops auto at a divergence it cannot re-find, without a request to the model', async () => {
    rig.useModel();
    const run = await replay(['--max-model-calls', '0']);
    expect(run.result.exitCode).toBe(1);
    expect(run.requests).toBe(0);
    expect(run.summary).toMatchObject({
      outcome: 'failed',
      code: 'MIME_REPLAY_DIVERGENCE',
      usage: { calls: 0 },
    });
    expect(run.summary.reason).toMatch(
      /^step 4 \(left_click at .*\): the recorded target was not found .*Auto mode stops here: this run may not call a model \(its model calls budget is 0\)/,
    );
    expect(run.result.stderr).toContain('This run was not allowed the model (--max-model-calls 0)');
    expect(run.state.playing).toBe('');

    const agent = await replay(['--mode', 'agent', '--max-model-calls', '0']);
    expect(agent.result.exitCode).toBe(2);
    expect(agent.requests).toBe(0);
    expect(agent.result.stderr).toContain('the agent mode asks the model at every turn');
  }, 120_000);

  it('re-finds every target of a moved and resized app and succeeds, without a request to the model', async () => {
    rig.useModel();
    await withDesktop({ query: 'dx=40&dy=24&scale=1.1' }, async (desktop) => {
      const run = await replay(['--max-model-calls', '0'], desktop);
      expect(run.result.exitCode, run.result.stderr).toBe(0);
      expect(run.requests).toBe(0);
      expect(run.state.playing).toBe('Faint');
      expect(run.summary.extracts).toEqual({ song_now_playing: 'Faint' });
    });
  }, 120_000);
});
