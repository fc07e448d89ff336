import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { centerOf, DEMO_LAYOUT } from '@mime-desktop/test-support/desktop-harness';
import { tempDir, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { manifestOf, recorded } from '@mime-desktop/test-support/recording';
import { startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { PNG } from 'pngjs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();

let home: string;

beforeAll(async () => {
  home = await fileTempDir('mime-record-');
}, 60_000);

beforeEach(async () => {
  await desktop().resetApp();
});

/** Starts `mime record` on the harness display and waits until it listens. */
async function startRecording(name: string, extra: string[] = []) {
  const recorder = startMime(['record', '--name', name, '--home', home, ...extra], { env: desktop().env });
  const sessionId = await recorder.waitForStdoutLine();
  await recorder.waitForStderr(/● Recording/);
  return { recorder, sessionId, dir: join(home, 'recordings', sessionId) };
}

async function mime(args: string[]) {
  const control = startMime(args, { env: desktop().env });
  return control.done;
}

/**
 * Records typing into the echo field on keyboard `layout` (setxkbmap; back to `us` after): `type`
 * presses the keys once the field has the focus. Resolves the recorder's result and its manifest.
 */
async function recordOnLayout(layout: string, name: string, type: () => Promise<void>) {
  await execa('setxkbmap', [layout], { env: desktop().env });
  try {
    const { recorder, sessionId, dir } = await startRecording(name);
    const echo = centerOf(DEMO_LAYOUT.echo);
    await desktop().click(echo.x, echo.y);
    await type();
    // A click ends the typing burst: the recorder then reports it (#1), every key of it seen.
    await desktop().click(echo.x, echo.y);
    await recorder.waitForStderr(recorded(1));
    expect((await mime(['record', 'stop', '--session', sessionId])).exitCode).toBe(0);
    const result = await recorder.done;
    expect(result.exitCode).toBe(0);
    return { result, events: await manifestOf(dir) };
  } finally {
    await execa('setxkbmap', ['us'], { env: desktop().env });
  }
}

/** Mean absolute difference of two PNGs inside a box (0 = identical pixels). */
async function regionDifference(
  dir: string,
  a: string,
  b: string,
  box: { x: number; y: number; width: number; height: number },
) {
  const [pa, pb] = await Promise.all([a, b].map(async (f) => PNG.sync.read(await readFile(join(dir, f)))));
  let sum = 0;
  for (let y = box.y; y < box.y + box.height; y += 1) {
    for (let x = box.x; x < box.x + box.width; x += 1) {
      const i = (y * (pa as PNG).width + x) * 4;
      for (let c = 0; c < 3; c += 1)
        sum += Math.abs(((pa as PNG).data[i + c] ?? 0) - ((pb as PNG).data[i + c] ?? 0));
    }
  }
  return sum / (box.width * box.height * 3);
}

describe('mime record', () => {
  it('records clicks, typing, keys, scrolls, drags and annotations with PRE frames', async () => {
    const { recorder, sessionId, dir } = await startRecording('play song');
    const search = centerOf(DEMO_LAYOUT.search);
    await desktop().click(search.x, search.y);
    await desktop().typeText('Numbx');
    await desktop().pressKeys('BackSpace', 'Return');
    await desktop().waitForAppState((s) => s.action === 'search:Numb');
    expect(
      (
        await mime([
          'record',
          'annotate',
          '--session',
          sessionId,
          'details',
          '--text',
          'the first Play button',
        ])
      ).exitCode,
    ).toBe(0);
    const play = centerOf(DEMO_LAYOUT.playButton(0));
    await desktop().click(play.x, play.y);
    await desktop().waitForAppState((s) => s.playing === 'Numb');
    await recorder.waitForStderr(recorded(3)); // the Play click, once no second click can follow
    const extract = await mime([
      'record',
      'annotate',
      '--session',
      sessionId,
      'extract',
      '--query',
      'the song now playing',
      '--value',
      'Numb',
    ]);
    expect(extract.exitCode).toBe(0);
    const list = centerOf(DEMO_LAYOUT.scrollList);
    await desktop().click(list.x, list.y, { button: 5, repeat: 3 });
    await recorder.waitForStderr(recorded(5)); // the scroll burst, once its notches have stopped
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    await desktop().click(pad.x, pad.y, { button: 3 });
    await desktop().xdotool('click', '--repeat', '2', '--delay', '80', '1');
    await desktop().waitForAppState((s) => s.pad === 'double');
    const item = centerOf(DEMO_LAYOUT.dragItem);
    const drop = centerOf(DEMO_LAYOUT.dropZone);
    await desktop().xdotool('mousemove', String(item.x), String(item.y), 'mousedown', '1');
    for (const f of [0.25, 0.5, 0.75, 1]) {
      await desktop().moveMouse(
        Math.round(item.x + (drop.x - item.x) * f),
        Math.round(item.y + (drop.y - item.y) * f),
      );
      await sleep(40); // a person's drag: the pointer moves in steps
    }
    await desktop().xdotool('mouseup', '1');
    await desktop().waitForAppState((s) => s.drop === 'ok');
    await desktop().pressKeys('ctrl+shift+k');
    await recorder.waitForStderr(recorded(9));
    expect((await mime(['record', 'stop', '--session', sessionId])).exitCode).toBe(0);
    const result = await recorder.done;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`next: mime reflect --session ${sessionId}`);

    const events = await manifestOf(dir);
    expect(events.map((e) => e.action_type)).toEqual([
      'click',
      'type',
      'key',
      'click',
      'extract',
      'scroll',
      'right_click',
      'double_click',
      'drag',
      'key',
      null,
    ]);
    const near = (actual: number, expected: number) =>
      expect(Math.abs(actual - expected)).toBeLessThanOrEqual(3);
    near(events[0]?.action_details.x, search.x);
    near(events[0]?.action_details.y, search.y);
    // Each pointer action keeps the window under it with its frame (the app's, over the whole screen);
    // typing and keys none.
    for (const event of events.filter((e) =>
      ['click', 'scroll', 'right_click', 'double_click', 'drag'].includes(e.action_type),
    )) {
      const box = event.window?.box;
      expect(box, event.action_type).toMatchObject({ x: 0, y: 0 });
      near(box?.width ?? 0, 1280);
      near(box?.height ?? 0, 800);
    }
    expect(events[1]?.window).toBeUndefined();
    expect(events[1]?.action_details).toEqual({ text: 'Numb', secret: false });
    expect(events[2]?.action_details).toEqual({ key: 'enter' });
    expect(events[3]).toMatchObject({ action_details: { button: 'left' }, details: 'the first Play button' });
    near(events[3]?.action_details.x, play.x);
    expect(events[4]).toMatchObject({ action_details: { query: 'the song now playing', values: ['Numb'] } });
    expect(events[5]?.action_details).toMatchObject({ dx: 0, dy: 3 });
    expect(events[6]?.action_details).toMatchObject({ button: 'right' });
    near(events[7]?.action_details.x, pad.x);
    expect(events[8]?.action_details).toMatchObject({ button: 'left' });
    near(events[8]?.action_details.to_x, drop.x);
    near(events[8]?.action_details.to_y, drop.y);
    expect(events[9]?.action_details).toEqual({ key: 'ctrl+shift+k' });
    for (const [n, event] of events.entries()) {
      expect(event.screenshot).toBe(`screenshots/${n}.png`);
      expect((await stat(join(dir, event.screenshot))).size).toBeGreaterThan(1000);
    }

    // The PRE frame of the Play click was taken before its instant effect; the next frame shows it.
    const before = await regionDifference(
      dir,
      events[0]?.screenshot,
      events[3]?.screenshot,
      DEMO_LAYOUT.nowPlaying,
    );
    const after = await regionDifference(
      dir,
      events[3]?.screenshot,
      events[4]?.screenshot,
      DEMO_LAYOUT.nowPlaying,
    );
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(5);

    const metadata = JSON.parse(await readFile(join(dir, 'metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({
      name: 'play song',
      session_id: sessionId,
      screen: { width: 1280, height: 800, scale_factor: 1 },
    });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'manifest.jsonl'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'screenshots', '0.png'))).mode & 0o777).toBe(0o600);

    const validate = await mime(['list', '--home', home, '--json']);
    const listed = JSON.parse(validate.stdout).recordings.find(
      (r: { session_id: string }) => r.session_id === sessionId,
    );
    expect(listed).toMatchObject({ name: 'play song', events: 10 });
  });

  it('keeps secret typing out of every file and leaves the hotkeys unrecorded', async () => {
    const { recorder, sessionId, dir } = await startRecording('secret');
    const echo = centerOf(DEMO_LAYOUT.echo);
    await desktop().click(echo.x, echo.y);
    await desktop().typeText('user');
    await desktop().waitForAppState((s) => s.typed === 'user');
    expect((await mime(['record', 'secret', '--session', sessionId, 'on'])).exitCode).toBe(0);
    // A click while a secret is typed keeps no window (its title may show the secret).
    await desktop().click(echo.x, echo.y);
    await desktop().typeText('hunter2');
    await desktop().pressKeys('ctrl+alt+shift+h');
    await recorder.waitForStderr(/secret typing off/);
    await desktop().typeText('done');
    await desktop().pressKeys('ctrl+alt+shift+s');
    const result = await recorder.done;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('stopping (hotkey)');

    const events = await manifestOf(dir);
    expect(events.map((e) => [e.action_type, e.action_details])).toEqual([
      ['click', expect.objectContaining({ button: 'left' })],
      ['type', { text: 'user', secret: false }],
      ['click', expect.objectContaining({ button: 'left' })],
      ['type', { text: '', secret: true }],
      ['type', { text: 'done', secret: false }],
      [null, {}],
    ]);
    expect(events[0]?.window).toBeDefined();
    expect(events[2]?.window).toBeUndefined();
    for (const file of await readdir(dir)) {
      if (file.endsWith('.json') || file.endsWith('.jsonl')) {
        expect(await readFile(join(dir, file), 'utf8')).not.toContain('hunter2');
      }
    }
    expect(result.stderr + result.stdout).not.toContain('hunter2');
  });

  it('drops the Ctrl+C that stops it, and stops by itself at --max-duration', async () => {
    const { recorder, dir } = await startRecording('interrupt');
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    await desktop().click(pad.x, pad.y);
    await recorder.waitForStderr(recorded(0));
    await desktop().pressKeys('ctrl+c');
    recorder.kill('SIGINT');
    const result = await recorder.done;
    expect(result.exitCode).toBe(0);
    expect((await manifestOf(dir)).map((e) => e.action_type)).toEqual(['click', null]);

    const timed = await startRecording('timed', ['--max-duration', '1.5', '--json']);
    const summary = await timed.recorder.done;
    expect(summary.exitCode).toBe(0);
    expect(JSON.parse(summary.stdout)).toMatchObject({ stopReason: 'max-duration', events: 0 });
  });

  it('leaves a valid manifest whose screenshots exist when killed with SIGKILL', async () => {
    const { recorder, dir } = await startRecording('killed');
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    for (let i = 0; i < 6; i += 1) {
      await desktop().click(pad.x + i * 40 - 100, pad.y);
      await recorder.waitForStderr(recorded(i)); // written to the manifest
    }
    recorder.kill('SIGKILL');
    await recorder.done;
    const text = await readFile(join(dir, 'manifest.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      const event = JSON.parse(line);
      expect((await stat(join(dir, event.screenshot))).isFile()).toBe(true);
    }
    const listed = await mime(['list', '--home', home, '--json']);
    expect(listed.exitCode).toBe(0);
  });

  it('stores what a German keyboard typed: umlauts, ß, AltGr € and @, a dead-key é', async () => {
    const { result, events } = await recordOnLayout('de', 'deutsch', async () => {
      // Physical keys of a German keyboard by X keycode (as a person presses them): ä ö ü, ß,
      // AltGr+E, AltGr+Q, ´ then e, Shift+Z ü r i c h, then the ISO key left of Y (`<`).
      const keys = ['48', '47', '34', '65', '20', '65', '108+26', '65', '108+24', '65', '21', '26', '65'];
      await desktop().xdotool(
        'key',
        '--delay',
        '40',
        ...keys,
        '50+29',
        '34',
        '27',
        '31',
        '54',
        '43',
        '65',
        '94',
      );
      await desktop().waitForAppState((state) => state.typed === 'äöü ß € @ é Zürich <');
    });
    const typed = events.find((event) => event.action_type === 'type');
    // The `<` key has no uiohook code: its character is missing, and the event says so.
    expect(typed?.action_details).toEqual({ text: 'äöü ß € @ é Zürich ', secret: false, unresolved: true });
    expect(result.stderr).toMatch(/warning: 1 typing event typed characters mime could not read/);
  });

  it('stores what a French keyboard typed (dead keys, AltGr) and the text a Ctrl+V pasted', async () => {
    const clipboard = 'Straße — 中文 😀';
    const { result, events } = await recordOnLayout('fr', 'français', async () => {
      // AZERTY keys by X keycode: Shift+^ (dead diaeresis) then a, o, u; AltGr+S (ß), AltGr+E (€),
      // AltGr+à (@), é, ^ then e (ê), ç, à, ù.
      const umlauts = ['50+34', '24', '50+34', '32', '50+34', '30', '65'];
      const altGr = ['108+39', '65', '108+26', '65', '108+19', '65'];
      const accents = ['11', '65', '34', '26', '65', '18', '65', '19', '65', '48', '65'];
      await desktop().xdotool('key', '--delay', '40', ...umlauts, ...altGr, ...accents);
      await desktop().waitForAppState((state) => state.typed === 'äöü ß € @ é ê ç à ù ');
      // Text another app put on the clipboard, pasted: what the person typed is that text.
      await execa('xsel', ['--clipboard', '--input'], { env: desktop().env, input: clipboard });
      await desktop().xdotool('key', 'ctrl+v');
      await desktop().waitForAppState((state) => state.typed === `äöü ß € @ é ê ç à ù ${clipboard}`);
    });
    const typed = events.filter((event) => event.action_type === 'type');
    expect(typed.map((event) => event.action_details)).toEqual([
      { text: `äöü ß € @ é ê ç à ù ${clipboard}`, secret: false },
    ]);
    expect(events.some((event) => event.action_type === 'key')).toBe(false);
    expect(result.stderr).not.toMatch(/warning/);
  });

  it('keeps the PRE frame of a slow typing burst from before its first key', async () => {
    const { recorder, sessionId, dir } = await startRecording('slow typing');
    const echo = centerOf(DEMO_LAYOUT.echo);
    await desktop().click(echo.x, echo.y);
    await recorder.waitForStderr(recorded(0));
    // Three seconds of typing, longer than the two seconds of frames the ring keeps.
    await desktop().xdotool('type', '--delay', '300', 'slowly typed');
    await desktop().waitForAppState((state) => state.typed === 'slowly typed');
    const search = centerOf(DEMO_LAYOUT.search);
    await desktop().click(search.x, search.y);
    await recorder.waitForStderr(recorded(2)); // the typing, then the click
    expect((await mime(['record', 'stop', '--session', sessionId])).exitCode).toBe(0);
    expect((await recorder.done).exitCode).toBe(0);
    const events = await manifestOf(dir);
    const typedAt = events.findIndex((event) => event.action_type === 'type');
    expect(events[typedAt]?.action_details.text).toBe('slowly typed');
    expect(events[typedAt]?.pre_frame).toBeUndefined();
    // Its PRE frame shows the echo field as the click left it (empty), not with the text typed.
    const field = DEMO_LAYOUT.echo;
    const box = { x: field.x, y: field.y, width: field.width, height: field.height };
    const typedFrame = events[typedAt]?.screenshot as string;
    const clickFrame = events[typedAt - 1]?.screenshot as string;
    const afterFrame = events[typedAt + 1]?.screenshot as string;
    const beforeDiff = await regionDifference(dir, typedFrame, afterFrame, box);
    const emptyDiff = await regionDifference(dir, typedFrame, clickFrame, box);
    expect(beforeDiff).toBeGreaterThan(emptyDiff);
    expect(beforeDiff).toBeGreaterThan(1);
  });

  it('keeps a scroll burst whole when the recorder stalls in the middle of it', async () => {
    const { recorder, sessionId, dir } = await startRecording('stalled scroll');
    const list = centerOf(DEMO_LAYOUT.scrollList);
    await desktop().moveMouse(list.x, list.y);
    await desktop().xdotool('click', '5');
    await sleep(150); // the pace of the burst: its first notch is seen before the stall
    // The recorder stops for a second (a busy machine): two notches are given during it, in time
    // for the burst; it must not end the burst before they are delivered.
    recorder.kill('SIGSTOP');
    try {
      await desktop().xdotool('click', '--repeat', '2', '--delay', '60', '5');
      await sleep(1000); // the stall itself
    } finally {
      recorder.kill('SIGCONT');
    }
    await recorder.waitForStderr(recorded(0)); // the burst, once its notches have stopped
    expect((await mime(['record', 'stop', '--session', sessionId])).exitCode).toBe(0);
    expect((await recorder.done).exitCode).toBe(0);
    const events = await manifestOf(dir);
    expect(events.map((e) => [e.action_type, e.action_details?.dy])).toEqual([
      ['scroll', 3],
      [null, undefined],
    ]);
  });

  it('fails with MIME_NO_DISPLAY and exit 2 without a display', async () => {
    const result = await startMime(['record', '--name', 'x', '--home', home], { env: { DISPLAY: '' } }).done;
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('[MIME_NO_DISPLAY]');
    expect(result.stderr).toContain('xvfb-run -a');
  });
});

describe('mime doctor on a display', () => {
  it('passes display, capture, hooks, accessibility and model checks (exit 0)', async () => {
    const server = await startFakeModelServer({ models: ['vision-1'] });
    try {
      const env = { ...desktop().env, MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1' };
      const result = await startMime(['doctor', '--json'], { env }).done;
      const { ok, checks } = JSON.parse(result.stdout);
      expect(checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
        'node:ok',
        'native modules:ok',
        'display:ok',
        'capture:ok',
        'input hooks:ok',
        'xwininfo:ok',
        'accessibility:ok',
        'model config:ok',
        'model endpoint:ok',
      ]);
      expect(checks[3].detail).toMatch(/^1280x800 logical px, scale 1, [\d.]+ ms a frame$/);
      expect(checks[5].detail).toMatch(/^xwininfo \d/);
      expect(checks[6].detail).toMatch(/^bus reachable; apps exposing a tree: .*Chromium/);
      expect(ok).toBe(true);
      expect(result.exitCode).toBe(0);

      // No model: a warning that says what still works, not a failure.
      const noModel = await startMime(['doctor', '--offline'], { env: { ...desktop().env } }).done;
      expect(noModel.stderr).toMatch(/! model config: /);
      expect(noModel.exitCode).toBe(0);

      // An xwininfo that does not run: a failure that says how to fix it (exit 1).
      const bin = await tempDir('mime-bin-');
      try {
        await writeFile(join(bin, 'xwininfo'), '#!/bin/sh\nexit 127\n', { mode: 0o755 });
        const path = `${bin}:${desktop().env.PATH ?? process.env.PATH}`;
        const noXwininfo = await startMime(['doctor', '--offline'], { env: { ...env, PATH: path } }).done;
        expect(noXwininfo.stderr).toMatch(/✗ xwininfo: xwininfo does not run/);
        expect(noXwininfo.stderr).toContain('apt install x11-utils');
        expect(noXwininfo.exitCode).toBe(1);
      } finally {
        await rm(bin, { recursive: true, force: true });
      }

      // No session bus: a warning that says what still works, not a failure.
      const noBus = await startMime(['doctor'], { env: { ...env, DBUS_SESSION_BUS_ADDRESS: '' } }).done;
      expect(noBus.stderr).toMatch(/! accessibility: no D-Bus session bus/);
      expect(noBus.stderr).toContain('pixels only');
      expect(noBus.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  });
});
