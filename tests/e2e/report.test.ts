/**
 * `mime report` end to end: the real binary on a real run folder (fixtures/runs/play-song-replan: an
 * agent run of the demo app with a replan, recorded with `song_name` sensitive and set to "Faint";
 * its screenshots pruned to three to keep the repository small, so the others show as missing), then
 * the page opened in headless Chromium. The page must read fully without scripts, so its content is
 * checked on a copy with its one script (Escape closes a zoomed screenshot) taken out.
 */
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFixture, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';

const _FIXTURE = join(REPO_ROOT, 'fixtures', 'runs', 'play-song-replan');
const RUN_ID = '20261122T154259Z-e62b';
const SECRET = 'Faint';
const HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">';

let root: string;
let runDir: string;

/** Runs headless Chromium on a page with a fresh profile. */
async function chromium(page: string, args: string[]): Promise<string> {
  const profile = await mkdtemp(join(root, 'chromium-'));
  const result = await execa(
    '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      ...args,
      `file://${page}`,
    ],
    { timeout: 30_000 },
  );
  return result.stdout;
}

const fileTempDir = useTempDirs();

beforeAll(async () => {
  root = await fileTempDir('mime-report-e2e-');
  runDir = join(root, 'workflow', '.replay', RUN_ID);
  await mkdir(join(root, 'workflow', '.replay'), { recursive: true });
  await copyFixture('runs/play-song-replan', runDir);
  // Model text is untrusted: one observation tries to inject markup.
  const eventsFile = join(runDir, 'events.jsonl');
  const lines = (await readFile(eventsFile, 'utf8')).trim().split('\n');
  const hostile = lines.map((line) => {
    const event = JSON.parse(line);
    if (event.type === 'tool_call' && event.data.args.observation === 'The Play button of {song_name}.') {
      event.data.args.observation = `The Play button. ${HOSTILE}`;
    }
    return JSON.stringify(event);
  });
  expect(hostile).not.toEqual(lines);
  await writeFile(eventsFile, `${hostile.join('\n')}\n`);
});

describe('mime report', () => {
  let page: string;
  /** The page as Chromium built it, and as it reads without its script. */
  let dom: string;
  let staticDom: string;
  let staticPage: string;

  beforeAll(async () => {
    // The secret is in the environment, as during the replay: the report must not pick it up.
    const result = await runMime(['report', runDir], { env: { MIME_PARAM_SONG_NAME: SECRET } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(join(runDir, 'report.html'));
    expect(result.stderr).toMatch(/✓ report written \(\d+ KiB, one self-contained file\)/);
    page = await readFile(join(runDir, 'report.html'), 'utf8');
    dom = await chromium(join(runDir, 'report.html'), ['--dump-dom']);
    staticPage = join(root, 'report-without-script.html');
    const withoutScript = page.replace(/<script>.*?<\/script>/s, '');
    expect(withoutScript).not.toContain('<script');
    await writeFile(staticPage, withoutScript);
    staticDom = await chromium(staticPage, ['--dump-dom']);
  }, 60_000);

  it('renders the outcome, params, usage, subtasks and observations, without scripts', () => {
    expect(staticDom).toContain('<h1>play a song in the demo player</h1>');
    expect(staticDom).toMatch(/class="verdict verdict-success">.*<strong>Success<\/strong>/s);
    expect(staticDom).toContain('<code>{song_name}</code> <span class="badge badge-secret">sensitive</span>');
    expect(staticDom).toMatch(/<dt>calls<\/dt><dd>12<\/dd>/);
    expect(staticDom).toMatch(/<span>replans<\/span><span class="num">1 \/ 2<\/span>/);
    for (const title of [
      'Search for {song_name} in the demo app.',
      'Play {song_name} from the results and read what is playing.',
    ]) {
      expect(staticDom).toContain(`<h2>${title}</h2>`);
    }
    expect(staticDom).toContain('<span class="pill pill-replanned">replanned</span>');
    expect(staticDom).toContain('<blockquote class="observation">The results list {song_name}.</blockquote>');
    expect(staticDom).toMatch(
      /<h2>Replan 1 of subtask 1<\/h2><span class="pill pill-replan">no progress<\/span>/,
    );
    expect(staticDom).toContain('<li>mouse_move at (1024, 760)</li>');
    expect(staticDom).toMatch(/<code>now_playing<\/code> = <q class="value">\{song_name\}<\/q>/);
    expect(staticDom).toContain('subtask_0_iter_0.png<br>not in the run folder');
  });

  it('inlines every screenshot it has as a data: URL and loads nothing from the network', () => {
    const sources = [...staticDom.matchAll(/<img src="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(sources).toHaveLength(3);
    expect(sources.every((src) => src.startsWith('data:image/webp;base64,'))).toBe(true);
    const links = [...staticDom.matchAll(/\s(?:src|href|action|srcset)="([^"]*)"/g)].map((m) => m[1] ?? '');
    // The only other links are to the run's own files beside the report.
    expect(links.filter((link) => !link.startsWith('data:') && !link.startsWith('#'))).toEqual([
      'summary.json',
      'events.jsonl',
      'replay_summary.txt',
    ]);
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/@import|url\(/);
  });

  it('shows injected markup as text', () => {
    expect(dom).toContain(
      '<blockquote class="observation">The Play button. &lt;script&gt;document.title="pwned"&lt;/script&gt;&lt;img src=x onerror="document.title=1"&gt;</blockquote>',
    );
    expect(dom.match(/<script/g)).toHaveLength(1);
    expect(dom).not.toContain('pwned</title>');
  });

  it('never shows the sensitive value', () => {
    expect(page).not.toContain(SECRET);
    expect(dom).not.toContain(SECRET);
  });

  it('draws as a page that is not blank', async () => {
    const shot = join(root, 'report.png');
    await chromium(staticPage, [`--screenshot=${shot}`, '--window-size=1280,2000']);
    const png = PNG.sync.read(await readFile(shot));
    expect([png.width, png.height]).toEqual([1280, 2000]);
    const colours = new Set<number>();
    for (let i = 0; i < png.data.length; i += 4 * 7) colours.add(png.data.readUInt32BE(i));
    expect(colours.size).toBeGreaterThan(100);
  }, 60_000);
});

describe('mime report --open and input errors', () => {
  it('opens the report with the desktop opener', async () => {
    const bin = join(root, 'bin');
    const opened = join(root, 'opened.txt');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    const result = await runMime(['report', runDir, '--open'], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    await expect
      .poll(() => readFile(opened, 'utf8').catch(() => ''), { timeout: 5000 })
      .toBe(join(runDir, 'report.html'));
  });

  it('exits 2 and names what is missing for a folder that is not a run', async () => {
    const workflow = await runMime(['report', join(root, 'workflow')]);
    expect(workflow.exitCode).toBe(2);
    expect(workflow.stderr).toContain(
      'is not a replay run folder: events.jsonl and summary.json are missing (this looks like a workflow folder: its runs are in .replay/)',
    );
    const missing = await runMime(['report', join(root, 'no-such-run')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no-such-run is not a replay run folder: no such folder');
    const width = await runMime(['report', runDir, '--max-image-width', 'wide']);
    expect(width.exitCode).toBe(2);
    expect(width.stderr).toContain('--max-image-width must be a whole number of pixels, got "wide"');
  });
});
