/**
 * Whether this session can be recorded: recording watches global input, which Wayland gives no
 * program (evdev would, with root or the `input` group; not used: untested here). A Wayland session
 * is refused before anything starts, with what works instead.
 */
import { probeDisplay } from '@mime-desktop/os-io';
import { MimeError } from '@mime-desktop/schema';

/** Recording asked for in a session that cannot be recorded (`MIME_RECORD_UNSUPPORTED`, exit 2). */
export class RecordingUnsupportedError extends MimeError {
  constructor(message: string) {
    super('MIME_RECORD_UNSUPPORTED', message, { exit: 'usage' });
  }
}

/** Throws {@link RecordingUnsupportedError} in a Wayland session (XWayland included). */
export async function assertRecordableSession(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const facts = await probeDisplay({ env });
  if (facts.sessionType !== 'wayland') return;
  const session = [
    facts.compositor ?? 'unnamed compositor',
    facts.waylandDisplay && `WAYLAND_DISPLAY=${facts.waylandDisplay}`,
  ]
    .filter(Boolean)
    .join(', ');
  throw new RecordingUnsupportedError(
    `mime cannot record in a Wayland session (${session}): Wayland lets no program watch the keyboard and ` +
      'pointer of other apps, and through XWayland mime would see only the X11 windows and miss the rest. ' +
      'What works: record in an X11 session (log in to an "Xorg"/X11 session), or on a virtual X server beside ' +
      'this session, which runs X11 and XWayland-capable apps: `xvfb-run -a mime record --launch "<app command>"` ' +
      '(add `-s "-screen 0 1280x800x24 -dpi 96"` after `-a` so Qt and Tk apps draw at the 96 DPI of Wayland; Xvfb defaults to 100). ' +
      'Workflows recorded there replay here: `mime replay` works in this session.',
  );
}
