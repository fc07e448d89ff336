import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { endedProcess, liveProcess } from '@mime-desktop/test-support/unfinished-run';
import { describe, expect, it } from 'vitest';
import { renderReport, writeReport } from '../src/index.ts';
import { agentTurn, type EventSpec, LOGIN_WORKFLOW, makeRunFolder, summaryOf } from './run-folder.ts';

const runStart = (data: Record<string, unknown> = {}): EventSpec => ({
  type: 'run_start',
  data: {
    run_id: '20261122T101500Z-beef',
    mode: 'agent',
    task_name: 'log in to the demo app',
    params: { user: 'ada', password: '{password}' },
    budgets: { iterations: { used: 0, limit: 15 } },
    dry_run: false,
    ...data,
  },
});
const subtaskStart: EventSpec = {
  type: 'subtask_start',
  subtask_i: 0,
  data: {
    text: 'Log in as ada. Expected outcome: the inbox shows.',
    origin: 'workflow',
    position: 1,
    count: 1,
  },
};
const subtaskEnd: EventSpec = {
  type: 'subtask_end',
  subtask_i: 0,
  data: { outcome: 'success', iterations: 2, duration_ms: 4000 },
};
const runEnd: EventSpec = {
  type: 'run_end',
  data: { outcome: 'success', code: null, reason: null, duration_ms: 5000 },
};

/** The attribute values of every `name="..."` in the page. */
const attributes = (page: string, name: string) =>
  [...page.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1] ?? '');

describe('writeReport', () => {
  it('writes one private, self-contained page: outcome, subtasks, observations, screenshots inlined', async () => {
    const dir = await makeRunFolder({
      events: [
        runStart(),
        subtaskStart,
        ...agentTurn(
          0,
          0,
          { action: 'left_click', point: { x: 320, y: 80 } },
          'The login form.',
          'On the form.',
        ),
        ...agentTurn(0, 1, { action: 'type', text: '{password}' }, 'The password field is focused.'),
        subtaskEnd,
        runEnd,
      ],
      summary: summaryOf(),
      workflow: LOGIN_WORKFLOW,
      images: {
        'subtask_0_iter_0.png': { width: 640, height: 400 },
        'subtask_0_iter_1.png': { width: 640, height: 400 },
      },
    });
    const file = await writeReport(dir);
    expect(file).toBe(join(dir, 'report.html'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const page = await readFile(file, 'utf8');
    expect(page).toContain('log in to the demo app');
    expect(page).toContain('verdict-success');
    expect(page).toContain('Log in as ada.');
    expect(page).toContain('The login form.');
    expect(page).toContain('On the form.');
    expect(page).toContain('The password field is focused.');
    expect(page).toContain('<q class="typed">{password}</q>');
    const sources = attributes(page, 'src');
    expect(sources).toHaveLength(2);
    expect(sources.every((src) => src.startsWith('data:image/webp;base64,'))).toBe(true);
    expect(
      [...attributes(page, 'src'), ...attributes(page, 'href')].filter((u) => /^(https?:)?\/\//.test(u)),
    ).toEqual([]);
    expect(page).toContain('content="default-src &#39;none&#39;; img-src data:;');
  });

  it('shows model text as text: no markup from a run reaches the page', async () => {
    const hostile = '</blockquote><script>document.title="pwned"</script><img src=x onerror=alert(1)>';
    const dir = await makeRunFolder({
      events: [
        runStart({ task_name: '<b>task</b>' }),
        { ...subtaskStart, data: { text: '<i>sub</i>', origin: 'workflow', position: 1, count: 1 } },
        ...agentTurn(0, 0, { action: 'type', text: '"><svg onload=alert(1)>' }, hostile, hostile),
        {
          type: 'capture',
          subtask_i: 0,
          iteration: 1,
          data: {
            screenshot: '"><img src=x onerror=alert(2)>.png',
            settled: true,
            settle_ms: 100,
            screen_changed: null,
            image: { width: 1280, height: 800 },
            image_bytes: 1000,
          },
        },
      ],
    });
    const page = await renderReport(dir);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<svg onload');
    expect(page).not.toContain('<b>task</b>');
    expect(page).toContain(
      '&lt;/blockquote&gt;&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;',
    );
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;.png<br>not in the run folder');
  });

  it('draws actions in logical screen pixels, scaled onto a smaller screenshot', async () => {
    const events = [
      runStart({ screen: { width: 2560, height: 1600 } }),
      subtaskStart,
      ...agentTurn(0, 0, { action: 'double_click', point: { x: 2000, y: 1200 } }, 'A file.'),
      ...agentTurn(
        0,
        1,
        { action: 'left_click_drag', point: { x: 100, y: 100 }, endPoint: { x: 900, y: 500 } },
        'x',
      ),
      ...agentTurn(0, 2, { action: 'key', keys: 'ctrl+shift+t' }, 'y'),
      ...agentTurn(0, 3, { action: 'scroll', direction: 'down', amount: 5, point: { x: 50, y: 60 } }, 'z'),
    ];
    const dir = await makeRunFolder({
      events,
      images: Object.fromEntries(
        [0, 1, 2, 3].map((n) => [`subtask_0_iter_${n}.png`, { width: 1280, height: 800 }]),
      ),
    });
    const page = await renderReport(dir);
    expect(attributes(page, 'viewBox')).toEqual(['0 0 2560 1600', '0 0 2560 1600', '0 0 2560 1600']);
    expect(page).toContain('cx="2000" cy="1200"');
    expect(page).toMatch(
      /<path class="mark-line" d="M100,100 L[\d.]+,[\d.]+"\/><polygon class="mark-head" points="900,500 /,
    );
    expect(page).toContain('press <span class="chord"><kbd>ctrl</kbd>+<kbd>shift</kbd>+<kbd>t</kbd></span>');
    expect(page).toContain('scroll down ×5 at (50, 60)');
    // Without the screen size, the marks are in the screenshot's own pixels.
    const plain = await makeRunFolder({
      events: [runStart(), ...events.slice(1)],
      images: { 'subtask_0_iter_0.png': { width: 1280, height: 800 } },
    });
    expect(attributes(await renderReport(plain), 'viewBox')).toEqual(['0 0 1280 800']);
  });

  it('scales wide screenshots down to maxImageWidth', async () => {
    const dir = await makeRunFolder({
      events: [
        runStart(),
        subtaskStart,
        ...agentTurn(0, 0, { action: 'left_click', point: { x: 5, y: 5 } }, 'o'),
      ],
      images: { 'subtask_0_iter_0.png': { width: 2000, height: 1000 } },
    });
    expect(attributes(await renderReport(dir), 'width')).toEqual(['1280']);
    expect(attributes(await renderReport(dir, { maxImageWidth: 320 }), 'width')).toEqual(['320']);
    await expect(renderReport(dir, { maxImageWidth: 10 })).rejects.toMatchObject({
      code: 'MIME_REPORT_OPTION_INVALID',
    });
  });

  it('renders trace steps and divergence crops side by side with their similarity and region', async () => {
    const at = { subtask_i: 0, iteration: 0 };
    const dir = await makeRunFolder({
      events: [
        runStart({ mode: 'trace' }),
        subtaskStart,
        {
          type: 'step',
          ...at,
          data: {
            step_i: 3,
            executed_by: 'regrounded',
            reason: 'the button moved; found it again by template match',
            action: { action: 'left_click', point: { x: 400, y: 300 } },
            description: 'left_click at (400, 300)',
            screenshot: 'step_3.png',
            score: 0.91,
          },
        },
        {
          type: 'divergence',
          ...at,
          data: {
            step_i: 3,
            expected: 'divergence_3_expected.png',
            observed: 'divergence_3_observed.png',
            similarity: 0.42,
            threshold: 0.8,
            region: { x: 350, y: 260, width: 100, height: 80 },
          },
        },
      ],
      images: {
        'step_3.png': { width: 800, height: 600 },
        'divergence_3_expected.png': { width: 100, height: 80 },
        'divergence_3_observed.png': { width: 100, height: 80 },
      },
    });
    const page = await renderReport(dir);
    expect(page).toContain('<span class="tool tool-step">step 4</span>');
    expect(page).toContain(
      '<span class="exec exec-regrounded">regrounded</span> <span class="muted">score 0.91</span>',
    );
    expect(page).toContain('the button moved; found it again by template match');
    expect(page).toContain('similarity <strong class="bad">0.42</strong> (threshold 0.80)');
    expect(page).toContain('<rect class="mark-region" x="350" y="260" width="100" height="80"/>');
    expect(page).toMatch(
      /<figcaption>expected<\/figcaption>.*divergence_3_expected\.png.*<figcaption>observed<\/figcaption>/s,
    );
    expect(attributes(page, 'src')).toHaveLength(3);
  });

  it('shows a sensitive param as its placeholder whatever the summary holds', async () => {
    const dir = await makeRunFolder({
      events: [runStart()],
      summary: summaryOf({ params: { user: 'ada', password: 'hunter2' } }),
      workflow: LOGIN_WORKFLOW,
    });
    const page = await renderReport(dir);
    expect(page).not.toContain('hunter2');
    expect(page).toContain('<code>{password}</code> <span class="badge badge-secret">sensitive</span>');
  });

  it("says first that the app's window was gone when the run's journal says so", async () => {
    const reason = 'the iterations budget is spent (15 of 15): raise it with --max-iterations';
    const events = (gone: boolean): EventSpec[] => [
      runStart(),
      subtaskStart,
      ...agentTurn(0, 0, { action: 'wait', seconds: 2 }, 'Loading.'),
      ...(gone
        ? [{ type: 'app_window_gone', subtask_i: 0, data: { window: 'title /^mime-demo /' } } as const]
        : []),
      {
        type: 'run_end',
        data: { outcome: 'failed', code: 'MIME_BUDGET_ITERATIONS', reason, duration_ms: 5000 },
      },
    ];
    const summary = summaryOf({ outcome: 'failed', code: 'MIME_BUDGET_ITERATIONS', reason });
    const headline = (page: string) =>
      /id="cause-headline">([^<]*)</.exec(page)?.[1]?.replaceAll('&#39;', "'");
    const gone = await renderReport(await makeRunFolder({ events: events(true), summary }));
    expect(headline(gone)).toBe(
      "The run could not go on: the app's window is gone (no window with title /^mime-demo / is open)",
    );
    expect(gone).toContain('<strong>Likely cause:</strong> The app was closed, or ended, during the run');
    // Without the event, the budget is the headline.
    const open = await renderReport(await makeRunFolder({ events: events(false), summary }));
    expect(headline(open)).toBe(`${reason[0]?.toUpperCase()}${reason.slice(1)}`);
  });

  it('reports a run killed before its summary from its events', async () => {
    const dir = await makeRunFolder({
      events: [runStart(), subtaskStart, ...agentTurn(0, 0, { action: 'wait', seconds: 2 }, 'Loading.')],
      tail: '{"time": "2026-11-22T10:15:09.000Z", "type": "capture", "subt',
    });
    const page = await renderReport(dir);
    expect(page).toContain('verdict-unfinished');
    expect(page).toContain('summary.json is missing');
    expect(page).toContain('<span class="pill pill-unfinished">unfinished</span>');
    expect(page).toMatch(/<dt>calls<\/dt><dd>1<\/dd>.*<dt>tokens in<\/dt><dd>2,000<\/dd>/s);
    expect(page).toContain('wait 2 s');
  });

  it('says a run without a summary running while its process lives, interrupted once it is gone', async () => {
    const page = async (process: object) =>
      renderReport(
        await makeRunFolder({
          events: [
            runStart({ process }),
            subtaskStart,
            ...agentTurn(0, 0, { action: 'wait', seconds: 2 }, 'Loading.'),
          ],
        }),
      );
    const running = await page(liveProcess());
    expect(running).toContain('<span class="pill pill-running">running</span>');
    expect(running).toContain('The run is still going (its process is alive)');
    expect(running).toContain('<dt>Duration</dt><dd>still going</dd>');
    expect(running).not.toMatch(/class="[^"]*unfinished|>unfinished</);
    const interrupted = await page(endedProcess());
    expect(interrupted).toContain('<span class="pill pill-interrupted">interrupted</span>');
    expect(interrupted).toContain('The run was interrupted: its process ended without writing summary.json');
    expect(interrupted).not.toMatch(/class="pill pill-running"/);
  });
});

describe('writeReport on what is not a run', () => {
  it('names what is missing', async () => {
    const root = await tempDir('mime-report-not-a-run-');
    await mkdir(join(root, 'workflow', '.replay'), { recursive: true });
    await writeFile(join(root, 'file.txt'), 'x');
    await expect(writeReport(join(root, 'nothing'))).rejects.toThrow(
      /nothing is not a replay run folder: no such folder/,
    );
    await expect(writeReport(join(root, 'file.txt'))).rejects.toThrow(/it is a file, not a folder/);
    await expect(writeReport(join(root, 'workflow'))).rejects.toMatchObject({
      code: 'MIME_NOT_A_RUN',
      message: expect.stringContaining(
        'events.jsonl and summary.json are missing (this looks like a workflow folder: its runs are in .replay/)',
      ),
    });
    await writeFile(
      join(root, 'workflow', 'events.jsonl'),
      '{"time":"2026-11-22T10:15:00.000Z","type":"capture"}\n',
    );
    await expect(writeReport(join(root, 'workflow'))).rejects.toThrow(/events.jsonl has no run_start event/);
    await mkdir(join(root, 'workflow', '.replay', '20261122T101500Z-beef'));
    await mkdir(join(root, 'workflow', '.replay', '20261122T111500Z-cafe'));
    await expect(writeReport(join(root, 'workflow', '.replay'))).rejects.toThrow(
      /are missing \(this folder holds runs: pass one, e.g. 20261122T111500Z-cafe\)/,
    );
    await writeFile(join(root, 'workflow', 'events.jsonl'), '{"time":"yesterday","type":"run_start"}\n');
    await expect(writeReport(join(root, 'workflow'))).rejects.toMatchObject({
      code: 'MIME_INVALID_FILE',
      message: expect.stringContaining('line 1.time'),
    });
  });
});
