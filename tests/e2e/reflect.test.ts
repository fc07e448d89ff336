import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFixture, useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const FIXTURE = join(REPO_ROOT, 'fixtures', 'recordings', 'play-song');
const SESSION = '20261122T145700Z-play-song';

let server: FakeModelServer;
let home: string;
const testDir = useTestDir('mime-reflect-');

beforeEach(async () => {
  server = await startFakeModelServer({ models: ['vision-1'] });
  home = testDir();
  await copyFixture('recordings/play-song', join(home, 'recordings', SESSION));
});

afterEach(async () => {
  await server.close();
});

const env = () => ({ MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1', MIME_MODEL_MAX_RETRIES: '2' });
const reflectCli = (...args: string[]) =>
  runMime(['reflect', '--session', SESSION, '--home', home, ...args], { env: env() });
const workflowDir = () => join(home, 'workflows', SESSION);
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
const kinds = () =>
  server
    .chatRequests()
    .map((r) => r.body?.response_format?.json_schema?.name ?? r.body?.tools?.[0]?.function.name);
const imagesOf = (n: number) =>
  (server.chatRequests()[n]?.body?.messages ?? []).flatMap((m) =>
    typeof m.content === 'string' || !m.content
      ? []
      : m.content
          .filter((p) => p.image_url)
          .map((p) => Buffer.from((p.image_url?.url ?? '').split(',')[1] ?? '', 'base64')),
  );

describe('mime reflect', () => {
  it('makes a valid, parametrized workflow with step sources, checkpoints and marked copies', async () => {
    server.setHandler(reflectModel());
    const result = await reflectCli();
    expect(result.stderr).toContain('5 steps, 2 subtasks; 6 model calls');
    expect(result.exitCode).toBe(0);
    expect(kinds().sort()).toEqual([
      'step_card',
      'step_card',
      'step_card',
      'step_card',
      'step_card',
      'task_plan',
    ]);

    const schema = await readJson(join(workflowDir(), 'schema.json'));
    expect(schema.task_params).toEqual([
      expect.objectContaining({ name: 'song_name', example: 'Numb', sensitive: false }),
    ]);
    const steps = schema.plan.subtasks.flatMap((s: { steps: unknown[] }) => s.steps);
    expect(
      steps.map((s: { action_type: string; action_value: string | null }) => [s.action_type, s.action_value]),
    ).toEqual([
      ['CLICK', null],
      ['TYPE', '{song_name}'],
      ['KEYPRESS', 'enter'],
      ['CLICK', null],
      ['EXTRACT', 'the song now playing'],
    ]);
    expect(steps[4].variable_name).toBe('song_now_playing');
    // The safety facts Pass B judged are the workflow's, and said.
    expect(schema).toMatchObject({
      requires_login: false,
      side_effects: [],
      safety_notes: ['Plays audio out loud.'],
    });
    expect(schema.stops_before_payment).toBeUndefined();
    expect(result.stderr).toContain(
      '  Needs no login.\n  Side effects: none.\n  Note: Plays audio out loud.\n',
    );
    expect(result.stderr).toContain(
      '  unknown: stops_before_payment (the model could not tell from the steps)',
    );
    expect(steps[3].source).toEqual({
      event_index: 3,
      screenshot: 'screenshots/3.png',
      point: { x: 562, y: 194 },
      end_point: null,
      box: { x: 482, y: 162, width: 160, height: 64 },
    });
    expect((await runMime(['validate', workflowDir()])).exitCode).toBe(0);
    // What replay's checks read on the recorded frames is read ahead and kept: the song's example at
    // the end of the subtasks, the extract's example; and the recorded frames a report shows, encoded.
    const prepared =
      /replay checks prepared: 3 recorded outcome\(s\) and extract\(s\) read ahead, (\d+) recorded frame\(s\) encoded for reports/.exec(
        result.stderr,
      );
    expect(prepared, result.stderr).not.toBeNull();
    expect((await readdir(join(workflowDir(), '.cache', 'ocr'))).length).toBeGreaterThan(0);
    expect(await readdir(join(workflowDir(), '.cache', 'report'))).toHaveLength(Number(prepared?.[1]));
    expect(await readJson(join(workflowDir(), 'step_cards.json'))).toHaveLength(5);
    expect((await readJson(join(workflowDir(), 'schema.draft.json'))).subtasks).toHaveLength(2);

    // Originals are copied untouched; clicks get a marked copy, which Pass A sees as PRE only.
    const original3 = await readFile(join(FIXTURE, 'screenshots', '3.png'));
    expect(await readFile(join(workflowDir(), 'screenshots', '3.png'))).toEqual(original3);
    const marked3 = await readFile(join(workflowDir(), 'screenshots', '3_marked.png'));
    expect(marked3.equals(original3)).toBe(false);
    const requestFor = (i: number) =>
      server.chatRequests().findIndex((r) => JSON.stringify(r.body?.messages).includes(`Step ${i} of 5`));
    const [pre3, post3] = imagesOf(requestFor(3));
    expect(pre3?.equals(marked3)).toBe(true);
    expect(post3?.equals(await readFile(join(FIXTURE, 'screenshots', '4.png')))).toBe(true);
    const [, post2] = imagesOf(requestFor(2));
    expect(post2?.equals(original3)).toBe(true);
    expect(JSON.stringify(server.chatRequests()[requestFor(3)]?.body?.messages)).toContain(
      'the Play button of the first result',
    );
  });

  it('reruns with no model call, and redoes only Pass B with --from pass-b', async () => {
    server.setHandler(reflectModel());
    expect((await reflectCli()).exitCode).toBe(0);
    const calls = server.chatRequests().length;
    const again = await reflectCli();
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('0 model calls');
    expect(server.chatRequests()).toHaveLength(calls);
    const planOnly = await reflectCli('--from', 'pass-b');
    expect(planOnly.exitCode).toBe(0);
    expect(kinds().slice(calls)).toEqual(['task_plan']);
  });

  it('resumes after being killed, without repeating finished steps', async () => {
    server.setHandler(reflectModel({ delayMs: 400 }));
    const first = startMime(['reflect', '--session', SESSION, '--home', home, '--concurrency', '1'], {
      env: env(),
    });
    const cardsFile = join(workflowDir(), 'step_cards.json');
    for (let i = 0; i < 200; i += 1) {
      const cards = await readJson(cardsFile).catch(() => []);
      if (cards.length >= 2) break;
      await sleep(50);
    }
    first.kill('SIGKILL');
    await first.done;
    const saved = (await readJson(cardsFile)) as Array<{ i: number }>;
    expect(saved.length).toBeGreaterThanOrEqual(2);
    expect(saved.length).toBeLessThan(5);
    const before = server.chatRequests().length;
    const second = await reflectCli();
    expect(second.exitCode).toBe(0);
    const redone = server
      .chatRequests()
      .slice(before)
      .filter((r) => r.body?.response_format?.json_schema?.name === 'step_card')
      .map((r) => Number(/Step (\d+) of/.exec(JSON.stringify(r.body?.messages))?.[1]));
    expect(redone.sort()).toEqual([0, 1, 2, 3, 4].filter((i) => !saved.some((c) => c.i === i)));
    expect(await readJson(cardsFile)).toHaveLength(5);
  });

  it('retries 429s, repairs a bad plan, and names the step whose output never validates', async () => {
    server.setHandler(
      reflectModel({
        fault: (n, kind) => {
          if (n === 0) return { type: 'error', status: 429, headers: { 'retry-after': '0.05' } };
          if (kind === 'task_plan' && n <= 6) {
            return {
              type: 'json',
              value: {
                detailed_task_description: 'x',
                subtasks: ['Only one.'],
                task_params: [],
                success_criteria: 'done',
                requires_login: null,
                side_effects: null,
                stops_before_payment: null,
                safety_notes: [],
                plan_step_updates: [],
              },
            };
          }
          return undefined;
        },
      }),
    );
    const repaired = await reflectCli();
    expect(repaired.exitCode).toBe(0);
    const plans = server
      .chatRequests()
      .filter((r) => r.body?.response_format?.json_schema?.name === 'task_plan');
    expect(plans).toHaveLength(2);
    expect(JSON.stringify(plans[1]?.body?.messages)).toContain('step 0 has no update');

    await rm(workflowDir(), { recursive: true });
    server.setHandler(
      reflectModel({
        fault: (_n, kind) => (kind === 'step_card' ? { type: 'json', value: { i: 0 } } : undefined),
      }),
    );
    const failed = await reflectCli('--concurrency', '1');
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/\[MIME_REFLECT_STEP\] step 1 \(click at \(240, 120\), manifest line 1\)/);
  });

  it('falls back to a forced tool call on servers without response_format', async () => {
    await server.close();
    server = await startFakeModelServer({ models: ['vision-1'], supportsResponseFormat: false });
    server.setHandler(reflectModel());
    const result = await reflectCli();
    expect(result.exitCode).toBe(0);
    expect(server.chatRequests().filter((r) => r.body?.tool_choice).length).toBeGreaterThanOrEqual(6);
  });

  it('turns secret typing into a sensitive param and reads ai_mime recordings', async () => {
    const dir = join(home, 'recordings', 'legacy');
    await mkdir(join(dir, 'screenshots'), { recursive: true });
    const legacy = (
      await readFile(join(REPO_ROOT, 'fixtures', 'compat', 'ai_mime', 'manifest.jsonl'), 'utf8')
    )
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    legacy.splice(3, 0, {
      action_type: 'type',
      action_details: { text: '', secret: true },
      screenshot: 'screenshots/9.png',
      timestamp: 1,
    });
    await writeFile(join(dir, 'manifest.jsonl'), legacy.map((e) => JSON.stringify(e)).join('\n'));
    await writeFile(join(dir, 'metadata.json'), JSON.stringify({ name: 'play a song on spotify' }));
    const frame = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#202830' } })
      .png()
      .toBuffer();
    for (const n of [0, 1, 2, 3, 4, 5, 9]) await writeFile(join(dir, 'screenshots', `${n}.png`), frame);
    server.setHandler(reflectModel());
    const result = await runMime(['reflect', '--session', 'legacy', '--home', home], { env: env() });
    expect(result.exitCode).toBe(0);
    const schema = await readJson(join(home, 'workflows', 'legacy', 'schema.json'));
    expect(schema.task_params).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'password', sensitive: true, example: null })]),
    );
    const typed = schema.plan.subtasks.flatMap(
      (s: { steps: Array<{ action_type: string; action_value: string }> }) =>
        s.steps.filter((step) => step.action_type === 'TYPE').map((step) => step.action_value),
    );
    expect(typed).toEqual(['{song_name}', '{password}', 'numb']);
  });
});

describe('mime reflect with bad input', () => {
  it('names the file and line of a corrupt manifest, and missing screenshots (exit 2)', async () => {
    const manifest = join(home, 'recordings', SESSION, 'manifest.jsonl');
    const lines = (await readFile(manifest, 'utf8')).split('\n');
    lines[2] =
      '{"action_type": "key", "action_details": {"key": "ctrl+warp"}, "screenshot": "screenshots/2.png", "timestamp": 1}';
    await writeFile(manifest, lines.join('\n'));
    const corrupt = await reflectCli();
    expect(corrupt.exitCode).toBe(2);
    expect(corrupt.stderr).toContain(`${manifest}: not a valid recording manifest (1 problem):`);
    expect(corrupt.stderr).toContain('line 3: action_details.key: unknown key "warp"');

    await cp(join(FIXTURE, 'manifest.jsonl'), manifest);
    await rm(join(home, 'recordings', SESSION, 'screenshots', '4.png'));
    const missing = await reflectCli();
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('[MIME_BAD_RECORDING]');
    expect(missing.stderr).toMatch(/screenshots\/4\.png: manifest\.jsonl line 5: the screenshot is missing/);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('--force with a failing model keeps the hand-edited workflow; a forced reflect that succeeds keeps it as a backup', async () => {
    server.setHandler(reflectModel());
    expect((await reflectCli()).exitCode).toBe(0);
    const schemaFile = join(workflowDir(), 'schema.json');
    const edited = (await readFile(schemaFile, 'utf8')).replace(
      /"task_name": "[^"]*"/,
      '"task_name": "Edited by hand"',
    );
    await writeFile(schemaFile, edited);
    server.setHandler(undefined);
    const failed = await reflectCli('--force');
    expect(failed.exitCode, failed.stderr).not.toBe(0);
    expect(failed.stderr).toMatch(/MIME_MODEL/);
    expect(await readFile(schemaFile, 'utf8')).toBe(edited);
    expect((await runMime(['validate', workflowDir()])).exitCode).toBe(0);

    server.setHandler(reflectModel());
    const redone = await reflectCli('--force');
    expect(redone.exitCode, redone.stderr).toBe(0);
    expect(await readFile(schemaFile, 'utf8')).not.toContain('Edited by hand');
    const backups = (await readdir(workflowDir())).filter((name) =>
      /^schema\.\d{8}T\d{9}Z\.json$/.test(name),
    );
    expect(backups).toHaveLength(1);
    expect(await readFile(join(workflowDir(), backups[0] as string), 'utf8')).toBe(edited);
  });

  it('refuses an empty recording and an unknown session (exit 2)', async () => {
    const manifest = join(home, 'recordings', SESSION, 'manifest.jsonl');
    await writeFile(
      manifest,
      '{"action_type": null, "action_details": {}, "screenshot": "screenshots/0.png", "timestamp": 1}\n',
    );
    const empty = await reflectCli();
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('the recording has no actions to reflect');
    const unknown = await runMime(['reflect', '--session', 'nope', '--home', home], { env: env() });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/recordings\/nope\/metadata\.json: no such file/);
  });

  it('without a model makes the workflow from the recording alone, and fails clearly on an unreachable or refusing endpoint', async () => {
    const none = await runMime(['reflect', '--session', SESSION, '--home', home]);
    expect(none.stderr).toMatch(
      /! no model is configured \(.*MIME_BASE_URL.*\): making the workflow from the recording alone/,
    );
    expect(none.stderr).toContain('0 model calls');
    expect(none.exitCode).toBe(0);
    const alone = JSON.parse(await readFile(join(workflowDir(), 'schema.json'), 'utf8'));
    expect(alone.task_params).toMatchObject([{ name: 'text_1', example: 'Numb', sensitive: false }]);
    // Without a model the safety facts are unknown, and said to be: never "no side effects".
    expect(none.stderr).toContain(
      'unknown: requires_login, side_effects, stops_before_payment (no model to judge them)',
    );
    expect(alone.side_effects).toBeUndefined();
    expect((await runMime(['validate', workflowDir()])).exitCode).toBe(0);
    // A model configured later improves it in place (here: one that cannot be reached).
    const down = await runMime(['reflect', '--session', SESSION, '--home', home], {
      env: { MIME_BASE_URL: 'http://127.0.0.1:9/v1', MIME_MODEL: 'm', MIME_MODEL_MAX_RETRIES: '0' },
    });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toContain('[MIME_MODEL_UNREACHABLE]');

    await server.close();
    server = await startFakeModelServer({ apiKey: 'sk-right-key' });
    const auth = await runMime(['reflect', '--session', SESSION, '--home', home], {
      env: { ...env(), MIME_BASE_URL: server.url, MIME_API_KEY: 'sk-wrong-secret-key' },
    });
    expect(auth.exitCode).toBe(2);
    expect(auth.stderr).toContain('[MIME_MODEL_AUTH]');
    expect(auth.stderr + auth.stdout).not.toContain('sk-wrong-secret-key');
    const files = await readdir(workflowDir(), { recursive: true });
    for (const file of files.filter((f) => String(f).endsWith('.json'))) {
      expect(await readFile(join(workflowDir(), String(file)), 'utf8')).not.toContain('sk-wrong-secret-key');
    }
  });
});
