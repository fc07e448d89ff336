/**
 * The clipboard, through nut-js (clipboardy 2: `xsel` on Linux, with a copy of xsel bundled as a
 * fallback; pbcopy on macOS; a helper exe on Windows). Works under Xvfb: xsel forks a small process
 * that owns the selection until another program takes it or the X server goes away.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DesktopFailureError } from './errors.ts';
import type { NutModule } from './native.ts';
import { pause } from './time.ts';

const run = promisify(execFile);

/** Longest clipboard text {@link readClipboard} gives back, in UTF-16 code units. */
export const MAX_CLIPBOARD_TEXT = 65_536;

/**
 * Puts `text` on the clipboard and waits until reading it back gives `text`: xsel returns before
 * its forked owner holds the selection, and a paste sent in between would paste the old content.
 */
export async function writeClipboard(
  nut: NutModule,
  text: string,
  signal: AbortSignal,
  timeoutMs = 2000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  try {
    await nut.clipboard.setContent(text);
  } catch (error) {
    throw new DesktopFailureError(
      `cannot write the clipboard (needed to type non-ASCII text): ${String(error)}. On Linux install xsel.`,
      { cause: error },
    );
  }
  while (Date.now() < deadline) {
    try {
      last = await nut.clipboard.getContent();
      if (last === text) return;
    } catch (error) {
      last = error;
    }
    await pause(10, signal);
  }
  throw new DesktopFailureError(
    `the clipboard did not take the text to paste within ${timeoutMs} ms (read back: ${JSON.stringify(String(last)).slice(0, 80)})`,
  );
}

/**
 * The clipboard's text as it is now, or null when it holds no text (empty, only an image), holds
 * more than `maxLength` characters, or its owner does not answer within `timeoutMs`. On Linux it
 * asks xsel itself, so a final newline is kept (nut-js' reader strips it); elsewhere nut-js.
 */
export async function readClipboard(
  nut: NutModule,
  timeoutMs = 1000,
  maxLength = MAX_CLIPBOARD_TEXT,
): Promise<string | null> {
  let text: string;
  try {
    if (process.platform === 'linux') {
      const read = await run('xsel', ['--clipboard', '--output'], {
        timeout: timeoutMs,
        maxBuffer: maxLength * 4,
        encoding: 'utf8',
      }).catch(async (error: { code?: unknown }) => {
        if (error.code !== 'ENOENT') throw error;
        return { stdout: await nut.clipboard.getContent() };
      });
      text = read.stdout;
    } else {
      text = await nut.clipboard.getContent();
    }
  } catch {
    return null;
  }
  return text === '' || text.length > maxLength ? null : text;
}
