/**
 * Accessibility-first replay, end to end: a form page in Chromium recorded with `mime record` by
 * input as a person makes it, reflected (the fake reflect model), then replayed in auto mode with
 * new params on variants of the app: moved, dark, zoomed 1.25x, a bigger screen (each must succeed
 * with 0 model calls and say which rung found each target), and one that loses the City value on
 * Send (must diverge in trace and in auto).
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type DesktopHarness,
  type DesktopHarnessOptions,
  FORM_APP_PATH,
} from '@mime-desktop/test-support/desktop-harness';
import { readEvents, tempDir, useTempDirs, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { addressPlan, fillAddress, recordByInput } from '@mime-desktop/test-support/record-by-input';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let home: string;
let server: FakeModelServer;
let workflowDir: string;

/** The form's fields on a 1280x800 screen as recorded (fixtures/apps/form: main at 40,40). */
const NAME = { x: 280, y: 114 };
const CITY = { x: 280, y: 165 };

const modelEnv = () => ({ MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1', MIME_MODEL_MAX_RETRIES: '1' });

interface FormState {
  ready: boolean;
  sent: { name: string; city: string } | null;
}
const formState = async (harness: DesktopHarness) => {
  const title = await harness.readTitle();
  return JSON.parse(title.slice(title.indexOf('{'), title.lastIndexOf('}') + 1)) as FormState;
};

/** Runs `use` on a desktop of its own showing the form app. */
const withForm = <T>(options: DesktopHarnessOptions, use: (harness: DesktopHarness) => Promise<T>) =>
  withDesktop({ app: FORM_APP_PATH, ...options }, use);

/** A run's events, data untyped for the checks. */
const events = async (runDir: string): Promise<Array<Record<string, any>>> => readEvents(runDir);

const fileTempDir = useTempDirs();

beforeAll(async () => {
  home = await fileTempDir('mime-a11y-');
  server = await startFakeModelServer({ models: ['vision-1'] });
  server.setHandler(
    reflectModel({
      plan: addressPlan(
        ['Fill in the name {name} and the city {city}', 'Send the form'],
        'Fill in the address form and send it.',
        'The page says the address was sent to {name} in {city}.',
      ),
    }),
  );
  // Record by input, as a person would: click a field, type, next field, type, Enter.
  const sessionId = await withForm({}, async (harness) => {
    const session = await recordByInput(harness, home, 'send address', async (recorded) => {
      await fillAddress(harness, { name: NAME, city: CITY }, recorded);
      await harness.pressKeys('Return');
      await recorded(5); // the typing, then the key
    });
    expect((await formState(harness)).sent).toEqual({ name: 'Ann Lee', city: 'Paris' });
    return session;
  });
  const reflected = await runMime(['reflect', '--session', sessionId, '--home', home], { env: modelEnv() });
  expect(reflected.stderr).toContain('✓');
  expect(reflected.exitCode).toBe(0);
  workflowDir = join(home, 'workflows', sessionId);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('a recording of a form page', () => {
  it('stores the element of each click and the focused field with its text after typing', async () => {
    const manifest = (await readFile(join(workflowDir, 'manifest.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const acted = manifest.filter((e) => e.action_type !== null);
    expect(acted.map((e) => e.action_type)).toEqual(['click', 'type', 'click', 'type', 'key']);
    expect(acted[0].element).toMatchObject({ role: 'entry', name: 'Name', app: 'Chromium' });
    expect(acted[1].element, JSON.stringify(acted.map((e) => e.element))).toMatchObject({
      role: 'entry',
      name: 'Name',
      text: 'Ann Lee',
    });
    expect(acted[2].element).toMatchObject({ role: 'entry', name: 'City' });
    expect(acted[3].element).toMatchObject({ role: 'entry', name: 'City', text: 'Paris' });
    expect(acted[4].element).toMatchObject({ role: 'entry', name: 'City' });
    const schema = JSON.parse(await readFile(join(workflowDir, 'schema.json'), 'utf8'));
    const steps = schema.plan.subtasks.flatMap((s: { steps: unknown[] }) => s.steps);
    expect(steps[0].target.element).toMatchObject({ role: 'entry', name: 'Name' });
    expect(steps[1].target.element).not.toHaveProperty('text');
  });
});

const variants: Array<[string, DesktopHarnessOptions]> = [
  ['moved 150 px', { query: 'dx=150&dy=90' }],
  ['in a dark theme', { query: 'dark=1' }],
  ['zoomed 1.25x', { scale: 1.25 }],
  ['on a 1920x1080 screen', { width: 1920, height: 1080 }],
];

describe('auto replay with new params, 0 model calls', () => {
  it.each(variants)(
    'succeeds %s and says the accessibility rung found each target',
    async (_, options) => {
      await withForm(options, async (harness) => {
        const result = await runMime(
          [
            'replay',
            workflowDir,
            '--mode',
            'auto',
            '--param',
            'name=Bob Jones',
            '--param',
            'city=Rome',
            '--json',
          ],
          { env: { ...harness.env } },
        );
        expect(result.stderr).not.toContain('internal error');
        expect((await formState(harness)).sent, result.stderr).toEqual({ name: 'Bob Jones', city: 'Rome' });
        const summary = JSON.parse(result.stdout);
        expect(summary.outcome).toBe('success');
        expect(summary.usage.calls).toBe(0);
        expect(result.exitCode).toBe(0);
        const run = await events(join(workflowDir, '.replay', summary.run_id));
        // Each typing checked by the field's text, the outcome by the values shown ("Sent to Bob Jones
        // in Rome"); the last key, whose change shows those values, by the outcome's content alone.
        const verified = run.filter((e) => e.type === 'verify').map((e) => [e.data.check, e.data.step_i]);
        expect(verified).toEqual([
          ['after_step', 1],
          ['after_step', 3],
          ['subtask_outcome', null],
        ]);
        const outcome = run.find((e) => e.type === 'verify' && e.data.check === 'subtask_outcome');
        expect(outcome?.data.threshold).toBe(1);
        // Read from the app's own words (its tree), not by OCR, and the console says so.
        expect(outcome?.data.read).toBe('app');
        expect(result.stderr).toMatch(/✓ outcome verified \(read from the app, \d+ ms\)/);
        // The console line and the report say which rung found each target.
        expect(result.stderr).toMatch(/Subtask 1 · Step 1 re-grounded \[accessibility\] left_click/);
        const report = await readFile(join(workflowDir, '.replay', summary.run_id, 'report.html'), 'utf8');
        expect(report.match(/found by accessibility/g)?.length).toBe(5);
        const steps = run.filter((e) => e.type === 'step').map((e) => [e.data.step_i, e.data.rung]);
        expect(steps).toEqual([
          [0, 'accessibility'],
          [1, 'accessibility'],
          [2, 'accessibility'],
          [3, 'accessibility'],
          [4, 'accessibility'],
        ]);
      });
    },
    90_000,
  );
});

describe('a workflow made without a model', () => {
  it('names its params after the fields typed into, and replays with new values', async () => {
    const other = await tempDir('mime-a11y-nomodel-');
    const sessionId = workflowDir.split('/').at(-1) ?? '';
    await cp(join(home, 'recordings', sessionId), join(other, 'recordings', sessionId), { recursive: true });
    const reflected = await runMime(['reflect', '--session', sessionId, '--home', other, '--no-model']);
    expect(reflected.exitCode, reflected.stderr).toBe(0);
    expect(reflected.stderr).toContain('made without a model');
    const dir = join(other, 'workflows', sessionId);
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    expect(schema.task_params).toMatchObject([
      { name: 'name', example: 'Ann Lee', sensitive: false },
      { name: 'city', example: 'Paris', sensitive: false },
    ]);
    expect(schema.plan.subtasks[0].steps[0].intent).toBe('Click the entry "Name" in Chromium.');
    await withForm({ query: 'dx=80&dy=30' }, async (harness) => {
      const result = await runMime(
        ['replay', dir, '--mode', 'auto', '--param', 'name=Cy Young', '--param', 'city=Oslo', '--json'],
        { env: { ...harness.env } },
      );
      expect((await formState(harness)).sent, result.stderr).toEqual({ name: 'Cy Young', city: 'Oslo' });
      expect(JSON.parse(result.stdout), result.stderr).toMatchObject({
        outcome: 'success',
        usage: { calls: 0 },
      });
    });
  }, 90_000);
});

describe('a Name field that takes no text', () => {
  it('ends auto in a divergence after the typing, by the field’s content', async () => {
    await withForm({ query: 'reject=name' }, async (harness) => {
      const result = await runMime(
        ['replay', workflowDir, '--mode', 'auto', '--param', 'name=Bob Jones', '--param', 'city=Rome'],
        { env: { ...harness.env } },
      );
      expect(result.stderr).toMatch(/step 2 .*the focused entry "Name" holds "", not "Bob Jones"/);
      expect(result.stderr).toContain('MIME_REPLAY_DIVERGENCE');
      expect(result.exitCode).toBe(1);
      expect((await formState(harness)).sent).toBeNull();
    });
  }, 60_000);
});

describe('a Name field an earlier run left filled in', () => {
  const prefilled = { query: `prefill=${encodeURIComponent('Zzz ')}` };

  it('is cleared first in auto, which says what it cleared, and ends holding only the new value', async () => {
    await withForm(prefilled, async (harness) => {
      const result = await runMime(
        [
          'replay',
          workflowDir,
          '--mode',
          'auto',
          '--param',
          'name=Bob Jones',
          '--param',
          'city=Rome',
          '--json',
        ],
        { env: { ...harness.env } },
      );
      expect((await formState(harness)).sent, result.stderr).toEqual({ name: 'Bob Jones', city: 'Rome' });
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      const run = await events(join(workflowDir, '.replay', summary.run_id));
      const typed = run.find((e) => e.type === 'step' && e.data.step_i === 1);
      expect(typed?.data.reason).toContain('cleared "Zzz " from the field first');
    });
  }, 60_000);

  it('is an honest divergence in trace, naming what the field holds', async () => {
    await withForm(prefilled, async (harness) => {
      const result = await runMime(
        ['replay', workflowDir, '--mode', 'trace', '--param', 'name=Bob Jones', '--param', 'city=Rome'],
        { env: { ...harness.env } },
      );
      expect(result.stderr).toMatch(
        /the focused entry "Name" holds "Zzz " where the recording's field was empty/,
      );
      expect(result.stderr).toContain('MIME_REPLAY_DIVERGENCE');
      expect(result.exitCode).toBe(1);
      expect((await formState(harness)).sent).toBeNull();
    });
  }, 60_000);
});

describe('an app that loses the City value on Send', () => {
  it.each(['trace', 'auto'])(
    'ends %s in an honest divergence, never in success',
    async (mode) => {
      await withForm({ query: 'drop=city' }, async (harness) => {
        const result = await runMime(
          ['replay', workflowDir, '--mode', mode, '--param', 'name=Bob Jones', '--param', 'city=Rome'],
          { env: { ...harness.env } },
        );
        expect((await formState(harness)).sent).toEqual({ name: 'Bob Jones', city: '' });
        expect(result.stderr).toContain('MIME_REPLAY_DIVERGENCE');
        expect(result.stderr).toMatch(/does not show city = "Rome" where the recording shows "Paris"/);
        expect(result.exitCode).toBe(1);
      });
    },
    90_000,
  );
});
