/**
 * The seed system's own words: a fake model that answers with ai_mime's replay tools (`computer_use`
 * with Qwen's fields plus observation and task memory, `extract` without a value, `done` with a
 * result; see FakeVisionVocabulary) in five dialects, through the real openai SDK, on the demo app
 * moved by 40x24 px. In each: an agent replay reaches the goal; an auto replay re-finds the moved
 * search field, hands the play subtask over (its Play click is a hand-written step, with no recorded
 * source) and reaches the goal too; and `mime heal` learns from that run. A model
 * that never names a usable action stops the run within 4 requests. The agent acts only inside the
 * app's windows: a click on another app's window, and typing while that window has the focus, are
 * refused and reported; `--agent-scope screen` lets them through.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '@mime-desktop/schema';
import { demoAppSetup } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, dataOf, readEvents } from '@mime-desktop/test-support/e2e-rig';
import type { FakeVisionDialect } from '@mime-desktop/test-support/fake-vision-model';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const _WORKFLOWS = join(REPO_ROOT, 'fixtures', 'workflows');

const rig = useModelRig({ query: 'dx=40&dy=24' });

async function replay(workflow: string, song: string, env: Record<string, string>, flags: string[]) {
  await rig.desktop.resetApp();
  const result = await runMime(['replay', workflow, '--param', `song_name=${song}`, '--json', ...flags], {
    env: { ...rig.env(), ...env },
  });
  const summary = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
  const events = summary ? await readEvents(summary.dir) : [];
  const data = (type: RunEvent['type']) => dataOf(events, type);
  return { result, summary, data, state: await rig.desktop.readAppState() };
}

const DIALECTS: Array<{
  dialect: FakeVisionDialect;
  label: string;
  env?: Record<string, string>;
  flags?: string[];
}> = [
  { dialect: 'mime', label: 'native tool calls' },
  {
    dialect: 'qwen-content',
    label: "the call left in the message text after a think block, ending with Qwen's terminate",
  },
  {
    dialect: 'qwen-xml',
    label: "Qwen's XML call form after a bare </think>, in text mode",
    env: { MIME_TOOL_MODE: 'text' },
  },
  {
    dialect: 'pixels',
    label: 'points in pixels of the image at its processor size',
    flags: ['--coordinates', 'pixels'],
  },
  { dialect: 'ui-tars', label: "UI-TARS's grammar", env: { MIME_TOOL_MODE: 'ui-tars' } },
];

describe("a model speaking ai_mime's replay vocabulary", () => {
  for (const { dialect, label, env = {}, flags = [] } of DIALECTS) {
    it(`${label}: agent and auto with a hand-over reach the goal, and mime heal learns from the run`, async () => {
      const model = rig.useModel({ dialect, vocabulary: 'ai-mime' });
      const { server } = rig;
      const start = server.chatRequests().length;
      const debug = () => JSON.stringify(model.turns.slice(-6), null, 1);

      const agent = await replay(await copyWorkflow('play-song'), 'Faint', env, [
        '--mode',
        'agent',
        ...flags,
      ]);
      expect(agent.result.exitCode, `${agent.result.stderr}\n${debug()}`).toBe(0);
      expect(agent.state.playing).toBe('Faint');
      // ai_mime's extract carries no value: mime read it in a request of its own.
      expect(agent.summary.extracts).toEqual({ now_playing: 'Faint' });
      expect(agent.data('model_call').filter((c) => c.purpose === 'extract').length).toBeGreaterThan(0);
      expect(model.turns.some((t) => t.kind === 'extract')).toBe(true);
      expect(agent.data('repair')).toEqual([]);
      const results = agent.data('done').map((d) => d.result);
      if (dialect === 'qwen-content') expect(results.every((r) => r === null)).toBe(true);
      else expect(results[0]).toMatch(/The results list Faint/);
      if (dialect === 'pixels') {
        expect(agent.data('capture')[0]?.image).toEqual({ width: 1288, height: 812 });
      }
      // The requests the run made are the requests it counted.
      expect(agent.summary.usage.calls).toBe(server.chatRequests().length - start);

      const before = server.chatRequests().length;
      const workflow = await copyWorkflow('play-song-recorded');
      const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
      schema.plan.subtasks[1].steps[0].source = null;
      await writeFile(join(workflow, 'schema.json'), JSON.stringify(schema));
      const auto = await replay(workflow, 'Numb', env, flags);
      expect(auto.result.exitCode, `${auto.result.stderr}\n${debug()}`).toBe(0);
      expect(auto.state.playing).toBe('Numb');
      expect(auto.data('handover').length).toBe(1);
      expect(auto.summary.usage.calls).toBe(server.chatRequests().length - before);

      const heal = await runMime(['heal', auto.summary.dir]);
      expect(heal.exitCode, heal.stderr).toBe(0);
      expect(heal.stderr).toMatch(/Subtask 2: \d+ action\(s\) the agent took replace 2 recorded step\(s\)/);
    }, 240_000);
  }
});

describe('a model that cannot speak the protocol', () => {
  it('stops the run within 4 requests with MIME_MODEL_OUTPUT, its last reply and the doctor hint', async () => {
    const { server } = rig;
    server.setHandler(() => ({
      type: 'text',
      content: 'I will click on the search field and type the song name. api_key=sk-not-a-call',
    }));
    const before = server.chatRequests().length;
    const run = await replay(await copyWorkflow('play-song'), 'Faint', {}, ['--mode', 'agent']);
    expect(run.result.exitCode).toBe(1);
    expect(server.chatRequests().length - before).toBeLessThanOrEqual(4);
    expect(run.summary.code).toBe('MIME_MODEL_OUTPUT');
    expect(run.result.stderr).toContain('unusable replies in a row');
    expect(run.result.stderr).toContain('I will click on the search field');
    expect(run.result.stderr).toContain('mime doctor --model');
    expect(run.data('replan')).toEqual([]);
  }, 120_000);
});

describe("the agent's scope", () => {
  const computerUse = (args: Record<string, unknown>) => ({
    type: 'tool-calls' as const,
    calls: [{ name: 'computer_use', arguments: { observation: 'I act.', task_memory: '', ...args } }],
  });
  /** Clicks another app's window (grid point of its middle), types, then only talks. */
  const scripted = () => {
    let turn = 0;
    return () => {
      turn += 1;
      if (turn === 1) return computerUse({ action: 'left_click', coordinate: [820, 850] });
      if (turn === 2) return computerUse({ action: 'type', text: 'hello' });
      return { type: 'text' as const, content: 'I am not sure what to do next.' };
    };
  };

  it("refuses a click on another app's window and typing while it has the focus; --agent-scope screen lifts it", async () => {
    const { desktop, server } = rig;
    const other = execa('xmessage', ['-geometry', '300x120+900+620', '-name', 'other-app', 'another app'], {
      env: desktop.env,
      reject: false,
    });
    try {
      const id = (
        await desktop.xdotool('search', '--sync', '--onlyvisible', '--classname', 'other-app')
      ).split('\n')[0] as string;
      const workflow = await copyWorkflow('play-song');
      const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
      schema.setup = demoAppSetup('dx=40&dy=24');
      await writeFile(join(workflow, 'schema.json'), JSON.stringify(schema));

      const runWith = async (flags: string[]) => {
        server.setHandler(scripted());
        const before = server.chatRequests().length;
        // The app gets the focus for its reset; then the other window takes it, as a person might.
        await desktop.xdotool('search', '--onlyvisible', '--name', '^mime-demo ', 'windowfocus', '--sync');
        await desktop.resetApp();
        await desktop.xdotool('windowfocus', '--sync', id);
        const result = await runMime(
          ['replay', workflow, '--mode', 'agent', '--param', 'song_name=Faint', '--json', ...flags],
          {
            env: rig.env(),
          },
        );
        const summary = JSON.parse(result.stdout);
        const events = await readEvents(summary.dir);
        const data = (type: RunEvent['type']) => dataOf(events, type);
        return { result, summary, data, requests: server.chatRequests().slice(before) };
      };

      const scoped = await runWith([]);
      expect(scoped.summary.code, scoped.result.stderr).toBe('MIME_MODEL_OUTPUT');
      // Chromium's instance name carries its profile folder: "chromium (/tmp/...)".
      const [said] = scoped.data('agent_scope');
      expect(said.classes).toContain('Chromium');
      expect(said.reason).toBe('windows of class Chromium');
      const actions = scoped.data('action');
      expect(actions.map((a) => [a.action.action, a.status])).toEqual([
        ['left_click', 'refused'],
        ['type', 'refused'],
      ]);
      expect(actions[0].error).toMatch(
        /^\(\d+, \d+\) is on "[^"]*" \(class Xmessage\), outside the windows of the app this task is about \(class Chromium\); act inside them$/,
      );
      expect(actions[1].error).toMatch(/^the keyboard focus is on "[^"]*" \(class Xmessage\)/);
      // The model was told why, in the next request.
      expect(JSON.stringify(scoped.requests[1]?.body)).toContain('refused: (');
      expect(scoped.result.stderr).toContain('(refused: ');
      const report = await readFile(scoped.summary.report, 'utf8');
      expect(report).toContain('Refused: outside the workflow');
      expect(report).toContain('The model may act on');
      expect((await desktop.readAppState()).search).toBe('');

      const lifted = await runWith(['--agent-scope', 'screen']);
      expect(lifted.data('agent_scope')).toEqual([
        { classes: [], reason: 'the whole screen (--agent-scope screen)' },
      ]);
      expect(lifted.data('action').map((a) => a.status)).toEqual(['executed', 'executed']);
    } finally {
      other.kill();
      await other;
    }
  }, 120_000);
});
