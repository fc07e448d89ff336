/**
 * The apps of the replay matrix (see `matrix.ts`): the address form page in Chromium, a Tk form
 * and a GTK 4 form (fixtures/apps/tk-form, gtk4-form: Name, City, Send; the state file they write
 * is read outside mime), and two editors that save a line to a file (FeatherPad, Qt 5; Mousepad,
 * GTK 3). Each is recorded by input at a person's pace and started anew for each replay.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { accessibleAppEnv } from './accessible-element.ts';
import { type DesktopHarness, FORM_APP_PATH } from './desktop-harness.ts';
import { clientArea, gtkAppEnv, waitForWindowTitle, windowGeometry } from './gtk-apps.ts';
import type { Condition, MatrixApp, StartedApp } from './matrix.ts';
import { asPerson, recordByInput } from './record-by-input.ts';
import { REPO_ROOT } from './run-mime.ts';
import { sleep } from './wait.ts';

const ADDRESS = ['Bob Jones', 'Rome'] as const;
const SYSTEM_PYTHON = '/usr/bin/python3';

const exists = async (command: string, ...args: string[]) =>
  (await execa(command, args, { reject: false })).exitCode === 0;

/** The environment of a UI language condition (the locale must exist: setup.sh makes de_DE.UTF-8). */
const languageEnv = (c: Condition) => (c.german ? { LANGUAGE: 'de', LC_ALL: 'de_DE.UTF-8' } : {});

/** Polls `read` until it returns a value (not undefined) or `timeoutMs` passes. */
async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Moves or shrinks the app's window as the condition says; waits until the window manager did. */
async function placeWindow(desktop: DesktopHarness, id: string, c: Condition): Promise<void> {
  if (!c.moved && !c.smaller) return;
  await sleep(800); // the window manager places a new window first: a move before it would be undone
  const box = await windowGeometry(desktop, id);
  if (c.moved) {
    await desktop.xdotool('windowmove', id, String(box.x + 150), String(box.y + 90));
    await poll(async () => ((await windowGeometry(desktop, id)).x >= box.x + 140 ? true : undefined), 'move');
  }
  if (c.smaller) {
    const [w, h] = [Math.round(box.width * 0.75), Math.round(box.height * 0.75)];
    await desktop.xdotool('windowsize', id, String(w), String(h));
    await poll(async () => ((await windowGeometry(desktop, id)).width <= w + 2 ? true : undefined), 'resize');
  }
}

/** Starts a native app for one replay; stops exactly it (by its pid). */
async function startNative(
  desktop: DesktopHarness,
  command: string,
  args: readonly string[],
  title: string,
  c: Condition,
  { env, appEnv }: { env: NodeJS.ProcessEnv; appEnv: NodeJS.ProcessEnv },
  check: StartedApp['check'],
): Promise<StartedApp> {
  const child = execa(command, args, {
    env: accessibleAppEnv({ ...env, ...appEnv, ...languageEnv(c) }),
    reject: false,
  });
  // An app that ends before its window shows fails at once, with what it said.
  const ended = child.then((result) => {
    const said = String(result.stderr ?? '')
      .trim()
      .slice(-600);
    throw new Error(
      `${command} ended (${result.exitCode ?? result.signal}) before its window showed: ${said}`,
    );
  });
  const id = await Promise.race([waitForWindowTitle(desktop, title), ended]);
  await placeWindow(desktop, id, c);
  return {
    env,
    check,
    stop: async () => {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/** The address form page in Chromium (kiosk: a smaller window is a smaller screen). */
export const chromiumForm: MatrixApp = {
  name: 'Chromium form',
  missing: async () => ((await exists('chromium', '--version')) ? null : 'chromium is not installed'),
  notApplicable: () => null,
  desktop: (c) => ({
    app: FORM_APP_PATH,
    query: formQuery(c),
    scale: c.scale,
    ...(c.screen ?? (c.smaller ? { width: 1024, height: 640 } : {})),
  }),
  values: ADDRESS,
  record: (desktop, home) =>
    recordByInput(desktop, home, 'chromium form', async (recorded) => {
      const person = asPerson(desktop);
      await person.click(280, 114);
      await recorded(1);
      await person.type('Ann Lee');
      await sleep(300);
      await person.click(280, 165);
      await recorded(3);
      await person.type('Paris');
      await sleep(300);
      await person.press('Return');
      await recorded(5);
    }),
  start: async (desktop) => ({
    env: desktop.env,
    check: async (values) => {
      const sent = formSent(await desktop.readTitle());
      return { ok: sent?.name === values[0] && sent?.city === values[1], saw: JSON.stringify(sent) };
    },
    stop: async () => {},
  }),
};

/** Reads the form page's state from a window title `mime-form {...}` (Chromium's or Firefox's). */
const formSent = (title: string) =>
  (JSON.parse(title.slice(title.indexOf('{'), title.lastIndexOf('}') + 1)).sent ?? null) as {
    name: string;
    city: string;
  } | null;

/** The form page's query under a condition. */
const formQuery = (c: Condition) =>
  [c.moved && 'dx=150&dy=90', c.dark && 'dark=1', c.german && 'lang=de', c.dropsValue && 'drop=city']
    .filter(Boolean)
    .join('&');

/** Longest wait for Firefox's page, ms: on a busy machine it took over 30 s to start. */
const FIREFOX_START_MS = 90_000;

/** Firefox ESR in kiosk mode on the form page, a fresh profile each start (no first-run pages). */
export const firefoxForm: MatrixApp = {
  name: 'Firefox form',
  missing: async () => ((await exists('which', 'firefox-esr')) ? null : 'firefox-esr is not installed'),
  notApplicable: () => null,
  desktop: (c) => ({
    app: false,
    windowManager: true,
    ...(c.screen ?? (c.smaller ? { width: 1024, height: 640 } : {})),
  }),
  values: ADDRESS,
  record: async (desktop, home, work) => {
    const profile = await firefoxProfile(work, 'record', {});
    const url = pathToFileURL(FORM_APP_PATH).href;
    const env = await gtkAppEnv(desktop);
    return recordByInput(
      desktop,
      home,
      'firefox form',
      async (recorded) => {
        await waitForWindowTitle(desktop, 'mime-form', FIREFOX_START_MS);
        await sleep(2000); // a person looks first: the page shown full screen
        const person = asPerson(desktop);
        await person.click(280, 114);
        await recorded(1);
        await person.type('Ann Lee');
        await sleep(300);
        await person.click(280, 165);
        await recorded(3);
        await person.type('Paris');
        await sleep(300);
        await person.press('Return');
        await recorded(5);
        const sent = formSent(
          await desktop.xdotool('getwindowname', await waitForWindowTitle(desktop, 'mime-form')),
        );
        if (sent?.name !== 'Ann Lee' || sent.city !== 'Paris')
          throw new Error(`Firefox form: the recording sent ${JSON.stringify(sent)}, not Ann Lee in Paris`);
      },
      { launch: `firefox-esr --kiosk --no-remote --profile ${profile} ${url}`, env },
    );
  },
  start: async (desktop, c, work) => {
    const profile = await firefoxProfile(
      work,
      c.name.replace(/\W+/g, '-'),
      c.scale ? { scale: c.scale } : {},
    );
    const query = formQuery(c);
    const url = `${pathToFileURL(FORM_APP_PATH).href}${query ? `?${query}` : ''}`;
    const env = await gtkAppEnv(desktop);
    const child = execa('firefox-esr', ['--kiosk', '--no-remote', '--profile', profile, url], {
      env: accessibleAppEnv({ ...env, ...languageEnv(c) }),
      reject: false,
    });
    const id = await waitForWindowTitle(desktop, 'mime-form', FIREFOX_START_MS);
    return {
      env,
      check: async (values) => {
        const sent = formSent(await desktop.xdotool('getwindowname', id));
        return { ok: sent?.name === values[0] && sent?.city === values[1], saw: JSON.stringify(sent) };
      },
      stop: async () => {
        child.kill('SIGKILL'); // its profile is thrown away: not asked to save a session
        await child;
      },
    };
  },
};

/** A fresh Firefox profile that opens no first-run page; `scale` sets its device pixel ratio. */
async function firefoxProfile(work: string, name: string, { scale }: { scale?: number }): Promise<string> {
  const dir = join(work, `firefox-${name}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const prefs = {
    'browser.shell.checkDefaultBrowser': false,
    'browser.startup.homepage_override.mstone': 'ignore',
    'browser.aboutwelcome.enabled': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'toolkit.telemetry.reportingpolicy.firstRun': false,
    'browser.tabs.warnOnClose': false,
    'browser.sessionstore.resume_from_crash': false,
    ...(scale ? { 'layout.css.devPixelsPerPx': String(scale) } : {}),
  };
  const lines = Object.entries(prefs).map(
    ([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`,
  );
  await writeFile(join(dir, 'user.js'), `${lines.join('\n')}\n`);
  return dir;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A Python form fixture (Tk or GTK 4): Name, City, Send; its state file read outside mime. */
function pythonForm(
  name: string,
  script: string,
  title: string,
  conditionArgs: (c: Condition) => string[],
  conditionEnv: (c: Condition) => NodeJS.ProcessEnv,
  missing: () => Promise<string | null>,
): MatrixApp {
  const path = join(REPO_ROOT, 'fixtures', 'apps', script);
  const stateOf = (work: string) => join(work, `${script.split('/')[0]}-state.json`);
  const readState = async (work: string) =>
    JSON.parse(await readFile(stateOf(work), 'utf8')) as {
      layout?: { name: Box; city: Box };
      sent: { name: string; city: string } | null;
    };
  return {
    name,
    missing,
    notApplicable: () => null,
    desktop: (c) => ({ app: false, windowManager: true, ...c.screen }),
    values: ADDRESS,
    record: async (desktop, home, work) => {
      const state = stateOf(work);
      await rm(state, { force: true });
      const env = { ...(await gtkAppEnv(desktop)), ...conditionEnv({ name: 'as recorded' }) };
      return recordByInput(
        desktop,
        home,
        name,
        async (recorded) => {
          const id = await waitForWindowTitle(desktop, title);
          const layout = await poll(async () => (await readState(work)).layout, `${name} layout`);
          await sleep(1000); // a person looks first: the window placed, its tree exported
          const win = await clientArea(desktop, id);
          const at = (b: Box) => [
            win.x + b.x + Math.round(b.width / 2),
            win.y + b.y + Math.round(b.height / 2),
          ];
          const person = asPerson(desktop);
          const [nx, ny] = at(layout.name) as [number, number];
          const [cx, cy] = at(layout.city) as [number, number];
          await person.click(nx, ny);
          await recorded(1);
          await person.type('Ann Lee');
          await sleep(300);
          await person.click(cx, cy);
          await recorded(3);
          await person.type('Paris');
          await sleep(300);
          await person.press('Return');
          await recorded(5);
          const sent = await poll(async () => (await readState(work)).sent ?? undefined, `${name} sent`);
          if (sent.name !== 'Ann Lee' || sent.city !== 'Paris')
            throw new Error(`${name}: the recording sent ${JSON.stringify(sent)}, not Ann Lee in Paris`);
        },
        { launch: `${SYSTEM_PYTHON} ${path} --state ${state}`, env },
      );
    },
    start: async (desktop, c, work) => {
      await rm(stateOf(work), { force: true });
      return startNative(
        desktop,
        SYSTEM_PYTHON,
        [path, '--state', stateOf(work), ...conditionArgs(c)],
        title,
        c,
        { env: await gtkAppEnv(desktop), appEnv: conditionEnv(c) },
        async (values) => {
          const sent = await readState(work)
            .then((s) => s.sent)
            .catch(() => null);
          return { ok: sent?.name === values[0] && sent?.city === values[1], saw: JSON.stringify(sent) };
        },
      );
    },
  };
}

/** Null when the system Python runs `code`, else `problem`. */
const pythonRuns = async (code: string, problem: string) =>
  (await exists(SYSTEM_PYTHON, '-c', code)) ? null : problem;

/** A Tk form (no accessibility tree): Tk's own dark colours and scaling. */
export const tkForm = pythonForm(
  'Tk form',
  'tk-form/form.py',
  '^tk-form',
  (c) =>
    [...(c.dark ? ['--dark'] : []), ...(c.scale ? ['--scale', String(c.scale)] : [])].concat(
      c.dropsValue ? ['--drop', 'city'] : [],
    ),
  () => ({}),
  () => pythonRuns('import tkinter', 'python3-tk is not installed'),
);

/** A GTK 4 form: the Adwaita dark theme, text scaled by its font DPI. */
export const gtk4Form = pythonForm(
  'GTK 4 form',
  'gtk4-form/form.py',
  '^gtk4-form',
  (c) => [...(c.scale ? ['--scale', String(c.scale)] : []), ...(c.dropsValue ? ['--drop', 'city'] : [])],
  (c) => ({ GSK_RENDERER: 'cairo', ...(c.dark ? { GTK_THEME: 'Adwaita:dark' } : {}) }),
  () => pythonRuns("import gi; gi.require_version('Gtk', '4.0')", 'gir1.2-gtk-4.0 is not installed'),
);

/** An editor that saves a line to a file given on its command line (Ctrl+S). */
function editor(
  name: string,
  command: string,
  conditionEnv: (c: Condition, configHome: string) => Promise<NodeJS.ProcessEnv>,
): MatrixApp {
  const fileOf = (work: string) => join(work, `${command}-note.txt`);
  return {
    name,
    missing: async () => ((await exists('which', command)) ? null : `${command} is not installed`),
    notApplicable: (c) => (c.dropsValue ? `${command} has no variant that drops a value` : null),
    desktop: (c) => ({ app: false, windowManager: true, ...c.screen }),
    values: ['Second line from replay'],
    record: async (desktop, home, work) => {
      const file = fileOf(work);
      await writeFile(file, '');
      const env = await gtkAppEnv(desktop);
      return recordByInput(
        desktop,
        home,
        name,
        async (recorded) => {
          const id = await waitForWindowTitle(desktop, `${command}-note`);
          await sleep(1500); // a person looks first: the window placed, the editor's tree exported
          const box = await windowGeometry(desktop, id);
          const person = asPerson(desktop);
          await person.click(box.x + Math.round(box.width / 2), box.y + Math.round(box.height / 2));
          await recorded(1);
          await person.type('First line');
          await sleep(300);
          await person.press('ctrl+s');
          await recorded(3);
          await poll(async () => ((await readFile(file, 'utf8')).trim() ? true : undefined), `${name} saved`);
        },
        { launch: `${command} ${file}`, env },
      );
    },
    start: async (desktop, c, work) => {
      const file = fileOf(work);
      await writeFile(file, '');
      const base = await gtkAppEnv(desktop);
      return startNative(
        desktop,
        command,
        [file],
        `${command}-note`,
        c,
        { env: base, appEnv: await conditionEnv(c, base.XDG_CONFIG_HOME as string) },
        async (values) => {
          const text = (await readFile(file, 'utf8')).trim();
          return { ok: text === values[0], saw: JSON.stringify(text) };
        },
      );
    },
  };
}

/** FeatherPad (Qt 5): its own dark colour scheme, QT_SCALE_FACTOR. */
export const featherpad = editor('FeatherPad (Qt 5)', 'featherpad', async (c, configHome) => {
  await mkdir(join(configHome, 'featherpad'), { recursive: true });
  await writeFile(join(configHome, 'featherpad', 'fp.conf'), `[text]\ndarkColorScheme=${c.dark === true}\n`);
  return c.scale ? { QT_SCALE_FACTOR: String(c.scale) } : {};
});

/** Mousepad (GTK 3): Adwaita dark, GDK_DPI_SCALE. */
export const mousepad = editor('Mousepad (GTK 3)', 'mousepad', async (c) => ({
  ...(c.scale ? { GDK_DPI_SCALE: String(c.scale) } : {}),
  ...(c.dark ? { GTK_THEME: 'Adwaita:dark' } : {}),
}));

export const MATRIX_APPS: readonly MatrixApp[] = [
  chromiumForm,
  firefoxForm,
  tkForm,
  gtk4Form,
  featherpad,
  mousepad,
];
