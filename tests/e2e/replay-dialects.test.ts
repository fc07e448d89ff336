/**
 * Agent replays against models that speak their own dialects (see fixtures/model-outputs/ for the
 * real outputs they follow): Qwen's computer-use vocabulary with absent fields through native calls
 * without `type` and with object arguments; the call left in the message text after a `<think>`
 * block holding a draft call; Qwen's XML call form after a bare `</think>`, plans too; points in
 * pixels of the image with `--coordinates pixels`. Real binary, real openai SDK over HTTP, Xvfb.
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, readEvents, runsOf } from '@mime-desktop/test-support/e2e-rig';
import type { FakeVisionDialect } from '@mime-desktop/test-support/fake-vision-model';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { beforeEach, describe, expect, it } from 'vitest';

const _PLAY_SONG = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');

const rig = useModelRig();

beforeEach(async () => {
  await rig.desktop.resetApp();
});

async function replayIn(
  dialect: FakeVisionDialect,
  song: string,
  env: Record<string, string>,
  flags: string[] = [],
  schema?: string,
) {
  const model = rig.useModel({ dialect });
  const workflow = await copyWorkflow('play-song');
  if (schema) await cp(schema, join(workflow, 'schema.json'));
  const result = await runMime(
    ['replay', workflow, '--mode', 'agent', '--param', `song_name=${song}`, ...flags],
    { env: { ...rig.env(), ...env } },
  );
  const [run] = await runsOf(workflow);
  const events = await readEvents(run as string);
  const summary = JSON.parse(await readFile(join(run as string, 'summary.json'), 'utf8'));
  const sources = new Set(events.filter((e) => e.type === 'tool_call').map((e) => e.data.source));
  const repairs = events.filter((e) => e.type === 'repair').length;
  return { result, summary, sources, repairs, turns: model.turns };
}

describe('agent replay in model dialects', () => {
  it("Qwen's vocabulary with absent fields, as native calls without type and with object arguments", async () => {
    const { result, sources, repairs, turns } = await replayIn('qwen-native', 'Faint', {});
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    expect([...sources]).toEqual(['native']);
    expect(repairs).toBe(0);
  });

  it('a call left in the message text after a think block with a draft call (native mode)', async () => {
    const { result, sources, repairs, turns } = await replayIn('qwen-content', 'Numb', {});
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Numb');
    expect([...sources]).toEqual(['content']);
    expect(repairs).toBe(0);
  });

  it("Qwen's XML call form after a bare </think>, in text mode", async () => {
    const { result, sources, turns } = await replayIn('qwen-xml', 'Crawling', { MIME_TOOL_MODE: 'text' });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Crawling');
    expect([...sources]).toEqual(['text']);
  });

  it('points in pixels of the image sent, with --coordinates pixels', async () => {
    const { result, turns } = await replayIn('pixels', 'Papercut', {}, ['--coordinates', 'pixels']);
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Papercut');
  });

  it("UI-TARS's Thought/Action grammar, with MIME_TOOL_MODE=ui-tars", async () => {
    const { result, summary, sources, turns } = await replayIn('ui-tars', 'Numb', {
      MIME_TOOL_MODE: 'ui-tars',
    });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Numb');
    expect(summary.extracts).toEqual({ now_playing: 'Numb' });
    expect([...sources]).toEqual(['ui-tars']);
    expect(turns[0]?.prompt).not.toContain('computer_use');
  });

  it('replays an ai_mime v2 file as ai_mime writes it, in Qwen native calls', async () => {
    const schema = join(REPO_ROOT, 'fixtures', 'compat', 'ai_mime', 'schema.v2.json');
    const { result, summary, turns } = await replayIn('qwen-native', 'Faint', {}, [], schema);
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    expect(summary.extracts).toEqual({ extract_0: 'Faint' });
    expect(result.stderr).toMatch(/"account_pin" is sensitive but the file stores its example/);
  });
});
