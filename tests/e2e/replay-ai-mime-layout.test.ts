/**
 * A workflow exactly as ai_mime writes one, with no recording (as every marketplace workflow comes):
 * its v2 layout, a TYPE step whose value is null, metadata with ai_mime's compact date and an
 * optimized_plan.json (Pass C). An auto replay with the fake model on the demo app reaches the goal;
 * the model was shown each reference step's screen, the unset TYPE as its to decide and the Pass C
 * success criteria; the run said which files the workflow may read; and the file is left as it was.
 * And a Pass C success criterion quoting a text with a param's value is checked on the app: on the
 * form app the run succeeds; on its variant that drops the City value on Send it never does. A trace
 * replay from the recording checks such a criterion too, and diverges on a text the app never shows.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '@mime-desktop/schema';
import { FORM_APP_PATH } from '@mime-desktop/test-support/desktop-harness';
import {
  copyFixture,
  copyWorkflow,
  dataOf,
  readEvents,
  withDesktop,
} from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const rig = useModelRig();

describe('an auto replay of a workflow as ai_mime writes it, without a recording', () => {
  it('reaches the goal with the model, which decides the unset TYPE and sees the Pass C checks', async () => {
    const dir = join(await rig.tempDir('mime-ai-mime-run-'), 'play-song-ai-mime');
    await copyFixture('compat/ai_mime/schema.v2.json', join(dir, 'schema.json'));
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    schema.plan.subtasks[0].steps[1].action_value = null;
    await writeFile(join(dir, 'schema.json'), JSON.stringify(schema, null, 2));
    await writeFile(
      join(dir, 'metadata.json'),
      JSON.stringify({
        session_id: '20260602T202321Z-play_song',
        name: 'play song',
        created_at: '20260602T202321Z',
      }),
    );
    await writeFile(
      join(dir, 'optimized_plan.json'),
      JSON.stringify({
        version: 1,
        user_filesystem_access: {
          readable_roots: [
            { path: '{music_dir}', reason: 'Covers are read from there.', approval_required: false },
          ],
          writable_roots: [],
        },
        inputs: [{ name: 'song_name', description: 'Song.', required: true, default: null }],
        constants: { music_dir: '/srv/music' },
        steps: [
          {
            id: 'search',
            source_subtask_ids: [0],
            executor: 'ui_agent',
            success_criteria: 'The results list the song.',
          },
        ],
      }),
    );
    const before = await readFile(join(dir, 'schema.json'), 'utf8');
    rig.useModel();
    const start = rig.server.chatRequests().length;
    await rig.desktop.resetApp();
    const result = await runMime(['replay', dir, '--mode', 'auto', '--param', 'song_name=Faint', '--json'], {
      env: rig.env(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    expect(summary.extracts).toEqual({ extract_0: 'Faint' });
    expect(result.stderr).toContain(
      'files it may read: /srv/music (Covers are read from there.); write: none',
    );
    const events = await readEvents(summary.dir);
    const reasons = dataOf(events, 'handover').map((h) => String(h.reason));
    expect(reasons[0]).toContain('step 1 (TYPE) has no value in the workflow either: the model decides it');
    const prompts = rig.server
      .chatRequests()
      .slice(start)
      .map((r) => JSON.stringify(r.body));
    const first = prompts[0] ?? '';
    expect(first).toContain(
      'TYPE (text not recorded: decide it from the subtask, its params and earlier values)',
    );
    expect(first).toContain('On: The search field of the demo music app is focused.');
    expect(first).toContain('The results list the song.');
    expect(dataOf(events, 'run_start' as RunEvent['type'])[0].files).toEqual({
      read: ['/srv/music (Covers are read from there.)'],
      write: [],
    });
    expect(await readFile(join(dir, 'schema.json'), 'utf8')).toBe(before);
  }, 240_000);
});

/** The form's fields on the 0..1000 grid of a 1280x800 screen (fixtures/apps/form: main at 40,40). */
const NAME_FIELD = [219, 143];
const CITY_FIELD = [219, 206];

/** A model that fills the form by clicks and typing, then says done every turn, whatever the screen shows. */
function formFiller(name: string, city: string) {
  const act = (args: Record<string, unknown>) => ({
    type: 'tool-calls' as const,
    calls: [
      { name: 'computer_use', arguments: { observation: 'The address form.', task_memory: '', ...args } },
    ],
  });
  const script = [
    act({ action: 'left_click', coordinate: NAME_FIELD }),
    act({ action: 'type', text: name }),
    act({ action: 'left_click', coordinate: CITY_FIELD }),
    act({ action: 'type', text: city }),
    act({ action: 'key', keys: 'enter' }),
  ];
  let turn = 0;
  return () => {
    turn += 1;
    return (
      script[turn - 1] ?? {
        type: 'tool-calls' as const,
        calls: [{ name: 'done', arguments: { observation: 'Sent.', task_memory: '' } }],
      }
    );
  };
}

describe("a Pass C success criterion naming a param's value", () => {
  it('lets the run succeed when the app shows it, and never when the app drops it', async () => {
    const dir = join(await rig.tempDir('mime-ai-mime-form-'), 'send-address');
    await mkdir(dir);
    const step = (i: number, type: string, intent: string) => ({
      i,
      expected_current_state: 'The address form.',
      intent,
      action_type: type,
      action_value: null,
      target: { primary: intent, fallback: null },
      post_action: ['The screen changes as intended.'],
      variable_name: null,
      additional_args: {},
    });
    const param = (name: string, example: string) => ({
      name,
      type: 'string',
      description: name,
      example,
      sensitive: false,
      optional: false,
    });
    // ai_mime's shape: no version, null TYPE values, and its subtask's expected outcome names no value.
    await writeFile(
      join(dir, 'schema.json'),
      JSON.stringify({
        task_name: 'send address',
        task_description_user: '',
        detailed_task_description: 'Fill in the address form and send it.',
        task_params: [param('full_name', 'Ann Lee'), param('city', 'Oslo')],
        success_criteria: 'The address is sent.',
        plan: {
          subtasks: [
            {
              subtask_i: 0,
              text: 'Fill in the name and the city, then send the form. Expected outcome: the form is sent.',
              dependencies: [],
              steps: [
                step(0, 'TYPE', 'Name field'),
                step(1, 'TYPE', 'City field'),
                step(2, 'KEYPRESS', 'Send'),
              ],
            },
          ],
        },
      }),
    );
    await writeFile(
      join(dir, 'optimized_plan.json'),
      JSON.stringify({
        version: 1,
        inputs: [
          { name: 'full_name', description: 'Name.', required: true, default: null },
          { name: 'city', description: 'City.', required: true, default: null },
        ],
        steps: [
          {
            id: 'send',
            source_subtask_ids: [0],
            executor: 'ui_agent',
            success_criteria: 'The page says "Sent to full_name in city".',
          },
        ],
      }),
    );
    const send = (query: string) =>
      withDesktop({ app: FORM_APP_PATH, query }, async (form) => {
        rig.server.setHandler(formFiller('Bob Jones', 'Rome'));
        const result = await runMime(
          [
            'replay',
            dir,
            '--mode',
            'agent',
            '--param',
            'full_name=Bob Jones',
            '--param',
            'city=Rome',
            '--max-iterations',
            '8',
            '--max-replans',
            '0',
            '--json',
          ],
          { env: { ...rig.env(), ...form.env } },
        );
        const title = await form.readTitle();
        const sent = JSON.parse(title.slice(title.indexOf('{'), title.lastIndexOf('}') + 1)).sent;
        const events = await readEvents(JSON.parse(result.stdout).dir);
        return { result, sent, events, claims: dataOf(events, 'claim') };
      });

    const shown = await send('');
    expect(shown.sent).toEqual({ name: 'Bob Jones', city: 'Rome' });
    expect(shown.result.exitCode, shown.result.stderr).toBe(0);
    expect(dataOf(shown.events, 'run_start')[0].criteria).toEqual([
      {
        subtask_i: 0,
        criterion: 'The page says "Sent to full_name in city".',
        checks: ['Sent to Bob Jones in Rome'],
      },
    ]);
    expect(shown.claims.at(-1)).toMatchObject({ claim: 'done', verdict: 'verified', read: 'ocr' });
    expect(shown.claims.at(-1).detail).toContain('the app shows "Sent to Bob Jones in Rome" (quoted text)');

    const dropped = await send('drop=city');
    expect(dropped.sent).toEqual({ name: 'Bob Jones', city: '' });
    expect(dropped.result.exitCode).not.toBe(0);
    expect(dropped.claims.map((c) => c.verdict)).not.toContain('verified');
    expect(dropped.claims[0]).toMatchObject({
      claim: 'done',
      verdict: 'refused',
      detail: expect.stringContaining('the app does not show "Sent to Bob Jones in Rome" (quoted text)'),
    });
  }, 240_000);
});

describe('a Pass C success criterion in a replay from the recording', () => {
  it('is checked after the last subtask of its step: trace succeeds when the app shows it, diverges when not', async () => {
    const trace = async (criterion: string) => {
      const workflow = await copyWorkflow('play-song-recorded');
      await writeFile(
        join(workflow, 'optimized_plan.json'),
        JSON.stringify({
          version: 1,
          steps: [
            { id: 'play', source_subtask_ids: [0, 1], executor: 'ui_agent', success_criteria: criterion },
          ],
        }),
      );
      await rig.desktop.resetApp();
      const result = await runMime(
        ['replay', workflow, '--mode', 'trace', '--param', 'song_name=Numb', '--json'],
        {
          env: rig.desktop.env,
        },
      );
      const events = await readEvents(JSON.parse(result.stdout).dir);
      return { result, events };
    };
    const shown = await trace('The bar says "Now playing: song_name".');
    expect(shown.result.exitCode, shown.result.stderr).toBe(0);
    // Checked once, after subtask 2 (the last of the step), read from the app.
    const outcomes = dataOf(shown.events, 'verify').filter(
      (v) => v.check === 'subtask_outcome' && v.region === null,
    );
    expect(outcomes).toEqual([
      expect.objectContaining({ step_i: null, read: expect.stringMatching(/^(app|ocr)$/) }),
    ]);

    const missing = await trace('The bar says "Now playing: song_name (live)".');
    expect(missing.result.exitCode).toBe(1);
    expect(missing.result.stderr).toContain('MIME_REPLAY_DIVERGENCE');
    expect(missing.result.stderr).toContain(
      'the app does not show "Now playing: Numb (live)" (quoted text), which the success criterion',
    );
  }, 180_000);
});
