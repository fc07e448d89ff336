/**
 * The keyboard on wlroots compositors: `wtype` (virtual-keyboard-unstable-v1; about 43 ms a call). A
 * virtual keyboard needs its keymap passed as a file descriptor, which Node's `net` cannot send, so
 * each text or chord is one wtype process. wtype builds a keymap for the characters it types, so any
 * text (symbols, non-ASCII) types as is, without the clipboard.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { KeyChord, Modifier } from '@mime-desktop/schema';
import { DesktopFailureError, InvalidInputError } from './errors.ts';

/**
 * wtype waits this long after making its keyboard, before the first key, ms. Measured before mime kept
 * a keyboard on the seat ({@link keepKeyboard}), when a headless seat gained one with each wtype
 * process and the app bound it only then: the first key sent at once was lost in 4 of 5 tries
 * (Chromium on sway); after a 5 ms pause none in 15. Each call's keyboard still brings its own keymap,
 * and Qt 5 natively on sway takes longer to take one (it compiles the keymap): with 30 ms the first
 * 1-5 keys of a text were lost in 2 of 4 runs of the FeatherPad e2e pair (a second FeatherPad after
 * the first ended); with 120 ms none in 4.
 */
const WARM_UP_MS = 120;

/**
 * wtype keeps its keyboard this long after the last key, ms: when it goes, the seat may lose its
 * keyboard, and an app that has not yet handled the last keys drops them. Measured on two loaded
 * cores (Chromium on sway, click + ctrl+a + backspace + "Faint", each a wtype call): without it 3
 * of 10 texts came out cut ("F", "Fain") or empty; with 50 ms, 39 of 40 whole (one empty, at a load
 * average of 27). A keyboard kept on the seat the whole run (a sleeping wtype) did no better.
 */
const HOLD_MS = 50;

/** mime's named keys -> XKB keysym names (what `wtype -k` takes). */
const NAMED_KEYSYMS: Record<string, string> = {
  enter: 'Return',
  tab: 'Tab',
  escape: 'Escape',
  backspace: 'BackSpace',
  delete: 'Delete',
  space: 'space',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
  pageup: 'Prior',
  pagedown: 'Next',
  insert: 'Insert',
  capslock: 'Caps_Lock',
  printscreen: 'Print',
  menu: 'Menu',
  ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`f${i + 1}`, `F${i + 1}`])),
};

/** mime's modifiers -> wtype's names for them. */
const WTYPE_MODIFIERS: Record<Modifier, string> = { ctrl: 'ctrl', alt: 'alt', shift: 'shift', meta: 'logo' };

/** Keysym names of the punctuation keys (what `wtype -k` and sway's `bindsym` take). */
const PUNCTUATION_KEYSYMS: Record<string, string> = {
  '-': 'minus',
  '+': 'plus',
  '=': 'equal',
  ',': 'comma',
  '.': 'period',
  '/': 'slash',
  ';': 'semicolon',
  "'": 'apostrophe',
  '[': 'bracketleft',
  ']': 'bracketright',
  '\\': 'backslash',
  '`': 'grave',
};

/** The XKB keysym name of a mime key (`Return`, `F5`, `a`, `minus`), or null when it has none here. */
export function keysymName(key: string): string | null {
  const named = NAMED_KEYSYMS[key] ?? PUNCTUATION_KEYSYMS[key];
  if (named !== undefined) return named;
  return /^[a-z0-9]$/i.test(key) ? key : null;
}

/** wtype's arguments that press `chord`: modifiers held around the key. wtype reads its arguments in order. */
export function chordArgs(chord: KeyChord): string[] {
  const keysym = keysymName(chord.key);
  // Any other single character is typed as text (wtype makes a key for it).
  if (keysym === null && [...chord.key].length !== 1) {
    throw new InvalidInputError(`no key to press for "${chord.key}"`);
  }
  const key = keysym !== null ? ['-k', keysym] : [chord.key];
  const press = chord.modifiers.flatMap((m) => ['-M', WTYPE_MODIFIERS[m]]);
  const release = chord.modifiers.toReversed().flatMap((m) => ['-m', WTYPE_MODIFIERS[m]]);
  return [...press, ...key, ...release];
}

/** Runs wtype on the compositor of `env`; rejects with a {@link DesktopFailureError}. */
export function wtype(args: readonly string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'wtype',
      ['-s', String(WARM_UP_MS), ...args, '-s', String(HOLD_MS)],
      { env, signal },
      (error, _stdout, stderr) => {
        if (!error) {
          resolve();
          return;
        }
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        reject(
          new DesktopFailureError(
            missing
              ? 'typing on a wlroots compositor needs wtype: install it (./setup.sh does; apt install wtype)'
              : `wtype failed: ${String(stderr).trim() || error.message}`,
            { cause: error },
          ),
        );
      },
    );
  });
}

/** How long a kept keyboard's wtype is given to end once its input closes, ms, before it is killed. */
const KEPT_END_MS = 1000;

/**
 * Keeps a keyboard on the seat of the compositor of `env` until `release`: `wtype -` reading a pipe
 * mime never writes to (it ends when the pipe closes, with mime if mime is killed). A seat whose only
 * keyboards are virtual (a headless sway) otherwise gains and loses its keyboard with each wtype call,
 * and an app must bind the keyboard anew each time: keys sent before it has are lost. XWayland took
 * longer than wtype's warm-up once on a loaded machine and lost a whole word (CI 14d); with the seat's
 * keyboard kept, the keys of each call wait in order behind its keymap, however late the app reads
 * them. Resolves once wtype runs, or null where it cannot (a missing wtype is left to the first
 * typing to report).
 */
export async function keepKeyboard(env: NodeJS.ProcessEnv): Promise<{ release(): Promise<void> } | null> {
  const child = spawn('wtype', ['-'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.on('error', () => undefined);
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.on('error', () => resolve(false));
  });
  if (!started) return null;
  const ended = once(child, 'exit').catch(() => undefined);
  const release = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), KEPT_END_MS);
    await ended;
    clearTimeout(timer);
  };
  return { release };
}
