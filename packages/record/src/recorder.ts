import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Accessibility,
  createDesktop,
  type Desktop,
  describeWindowQuery,
  epochNow,
  findWindows,
  type HookEvent,
  type HookKeyEvent,
  type HookSubscription,
  launchApp,
  type RawFrame,
  type WindowQuery,
} from '@mime-desktop/os-io';
import {
  type AccessibleElement,
  formatKeyChord,
  identityOf,
  isSecretElement,
  type KeyChord,
  MimeError,
  normalizeKeyChord,
  type RecordingMetadata,
  type WorkflowSetup,
  writeJsonAtomic,
} from '@mime-desktop/schema';
import { ActionAggregator, type AggregatorOptions, type RecordedAction } from './aggregate.ts';
import { type ControlRequest, type ControlStatus, startControlServer } from './control.ts';
import { assertRecordableSession } from './recordable-session.ts';
import { ReplayWatch } from './replay-watch.ts';
import { createSessionDir } from './session.ts';
import { type PendingEvent, SessionWriter } from './session-writer.ts';

const { version: MIME_VERSION } = createRequire(import.meta.url)('../package.json') as { version: string };

/** Hotkeys of a recording, in chord syntax; `null` turns one off. */
export interface RecorderHotkeys {
  /** Pause and annotate (extract or details). Default `ctrl+i` (as in ai_mime). */
  annotate?: string | null;
  /** Stop the recording. Default `ctrl+alt+shift+s`. */
  stop?: string | null;
  /** Toggle secret typing (typed text is not stored). Default `ctrl+alt+shift+h`. */
  secret?: string | null;
}

export const DEFAULT_HOTKEYS = {
  annotate: 'ctrl+i',
  stop: 'ctrl+alt+shift+s',
  secret: 'ctrl+alt+shift+h',
} as const;

/** An annotation given at the Ctrl+I prompt, or through the control channel. */
export type Annotation = Extract<ControlRequest, { type: 'extract' | 'details' }>;

/** Why a recording stopped. */
export type StopReason = 'signal' | 'interrupt' | 'hotkey' | 'control' | 'max-duration';

export type RecorderEvent =
  | {
      type: 'started';
      sessionId: string;
      dir: string;
      screen: RecordingMetadata['screen'];
      hotkeys: RecorderHotkeys;
    }
  | {
      type: 'event';
      index: number;
      action_type: string | null;
      details: PendingEvent['event']['action_details'];
      /** Epoch ms of the action's first input (the `epochNow` clock). */
      time: number;
    }
  | { type: 'ignored'; action_type: string; reason: string }
  | { type: 'paused' }
  | { type: 'resumed' }
  | { type: 'annotation-requested' }
  | { type: 'secret'; on: boolean }
  | { type: 'stopping'; reason: StopReason }
  | { type: 'warning'; message: string }
  | { type: 'error'; error: unknown };

export interface RecordOptions {
  /** Name of the task, e.g. `play song`. */
  name: string;
  /** What the task is for. Default empty. */
  description?: string;
  /** Data root: the session is written to `<home>/recordings/<session_id>/`. */
  home: string;
  /** Frames a second kept in the ring the PRE frames come from. Default 10. */
  fps?: number;
  /** Stop by itself after this long, ms. Default: no limit. */
  maxDurationMs?: number;
  /** Stops the recording when aborted; a `reason` of `'interrupt'` (Ctrl+C) drops the Ctrl+C chord itself. */
  signal?: AbortSignal;
  /** Hotkeys; see {@link RecorderHotkeys} for each default. */
  hotkeys?: RecorderHotkeys;
  /**
   * Asks the person for an annotation after the annotate hotkey (the CLI asks in the terminal);
   * resolves null when they cancel. Without it the hotkey only emits `annotation-requested`.
   */
  promptAnnotation?: () => Promise<Annotation | null>;
  /**
   * Another way to ask for an annotation besides the hotkey (the CLI: Ctrl+I or Tab in its own
   * terminal, which may not be on the recorded display). Called once recording has started with a
   * function that asks, as the hotkey does; returns a function that stops listening.
   */
  annotateFrom?: (ask: () => void) => () => void;
  /** Progress events. Default none. */
  onEvent?: (event: RecorderEvent) => void;
  /** Grouping of raw input into actions; see {@link AggregatorOptions} for each default. */
  aggregation?: Omit<AggregatorOptions, 'isSecret'>;
  /**
   * Drop input given to the window that has the focus when recording starts (the terminal running
   * `mime record`). Default false; the CLI turns it on when run from a terminal.
   */
  ignoreTerminal?: boolean;
  /** The desktop to record. Default: the nut-js + uiohook desktop of this display (probed first). */
  desktop?: Desktop;
  /**
   * Starts the app before recording and stores the launch as the recording's `setup`, so replay can
   * start it too. Default none.
   */
  launch?: LaunchOptions;
}

export interface LaunchOptions {
  /** Shell command that starts the app. */
  command: string;
  /** The app window to wait for. Default: the first new window that appears, by its class. */
  window?: WindowQuery;
  /** How long to wait for the window, ms. Default 30000. */
  timeoutMs?: number;
}

/** The app to record never showed its window (`MIME_LAUNCH_FAILED`). */
export class LaunchError extends MimeError {
  constructor(message: string) {
    super('MIME_LAUNCH_FAILED', message);
  }
}

/** Escapes text for use as a literal inside a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Starts the app and waits for its window; returns the setup to store. Without a window to wait for,
 * the first window that was not open before is taken, and named by its class.
 */
async function launchForRecording(launch: LaunchOptions): Promise<WorkflowSetup> {
  const timeoutMs = launch.timeoutMs ?? 30_000;
  const before = new Set((await findWindows({})).map((w) => w.id));
  await launchApp(launch.command);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const windows = await findWindows(launch.window ?? {});
    const found = launch.window ? windows[0] : windows.find((w) => !before.has(w.id) && w.classes.length > 0);
    if (found) {
      const window = launch.window ?? { class: `^${literal(found.classes.at(-1) ?? '')}$` };
      return { command: launch.command, window, timeout_ms: timeoutMs };
    }
    if (performance.now() >= deadline) {
      throw new LaunchError(
        `the app started by \`${launch.command}\` showed no ${launch.window ? `window matching ${describeWindowQuery(launch.window)}` : 'new window'} within ${timeoutMs / 1000} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface RecordingResult {
  sessionId: string;
  dir: string;
  /** Recorded events, the end marker not counted. */
  events: number;
  durationMs: number;
  stopReason: StopReason;
}

/** How long a Ctrl+C chord is held back in case it is the terminal's interrupt that stops recording. */
const INTERRUPT_HOLD_MS = 400;
/**
 * Longest wait for the element an action is about, ms (a busy machine slows the apps' answers). A lookup runs beside the click's own
 * double-click wait (400 ms), so a click is not written later for it.
 */
const ELEMENT_LOOKUP_MS = 1000;

/** Chords that paste the clipboard (text fields; terminals; X11's other paste key). */
const PASTE_CHORDS = new Set(['ctrl+v', 'ctrl+shift+v', 'shift+insert'].map((c) => normalizeKeyChord(c)));

function chordOf(text: string | null | undefined): string | null {
  return text ? normalizeKeyChord(text) : null;
}

/** A key press as a chord (`ctrl+v`); undefined for any other event. */
function chordOfEvent(event: HookEvent): string | undefined {
  if (event.type !== 'keydown' || event.key === null) return undefined;
  return formatKeyChord({ modifiers: event.modifiers, key: event.key } as KeyChord);
}

async function firstFrame(desktop: Desktop, ring: ReturnType<Desktop['createFrameRing']>): Promise<RawFrame> {
  for (let i = 0; i < 50; i += 1) {
    const frame = ring.latest();
    if (frame) return frame;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return desktop.captureFrame();
}

/**
 * Records a task until it is stopped (signal, stop hotkey, control channel or `maxDurationMs`), writing
 * `<home>/recordings/<session_id>/` as it goes: metadata.json, then for each action its PRE frame
 * (the last frame captured before the action's first input) and its manifest line, and at the end a
 * `null` end-marker event with the final frame.
 */
export async function record(options: RecordOptions): Promise<RecordingResult> {
  const emit = options.onEvent ?? (() => undefined);
  const hotkeys = {
    annotate: chordOf(
      options.hotkeys?.annotate === undefined ? DEFAULT_HOTKEYS.annotate : options.hotkeys.annotate,
    ),
    stop: chordOf(options.hotkeys?.stop === undefined ? DEFAULT_HOTKEYS.stop : options.hotkeys.stop),
    secret: chordOf(options.hotkeys?.secret === undefined ? DEFAULT_HOTKEYS.secret : options.hotkeys.secret),
  };
  // No recording while a replay drives the display; input a replay gives later is dropped (below).
  await ReplayWatch.refuseWhileReplaying();
  const ownDesktop = options.desktop === undefined;
  if (ownDesktop) await assertRecordableSession();
  const desktop = options.desktop ?? (await createDesktop({ failSafe: false }));
  // Accessibility opens beside the rest of the start; an element lookup that is not back in time
  // leaves its event without one.
  const a11y = desktop.accessibility().catch(() => null);
  const lookUp = <T>(ask: (a11y: Accessibility) => Promise<T | null>): Promise<T | null> =>
    a11y
      .then((opened) =>
        opened ? Promise.race([ask(opened), delay(ELEMENT_LOOKUP_MS, null, { ref: false })]) : null,
      )
      .catch(() => null);
  // The terminal is the window focused now, before a launched app takes the focus.
  const terminal = options.ignoreTerminal ? await desktop.activeWindow() : null;
  const setup = options.launch ? await launchForRecording(options.launch) : undefined;
  const startedAt = new Date();
  const started = epochNow();
  const { sessionId, dir } = await createSessionDir(
    join(options.home, 'recordings'),
    options.name,
    startedAt,
  );
  const screen = {
    width: desktop.screen.logical.width,
    height: desktop.screen.logical.height,
    scale_factor: desktop.screen.scale,
  };
  const metadata: RecordingMetadata = {
    name: options.name,
    description: options.description ?? '',
    session_id: sessionId,
    created_at: startedAt.toISOString(),
    platform: `${process.platform} (${desktop.display.sessionType})`,
    screen,
    mime_version: MIME_VERSION,
    ...(setup ? { setup } : {}),
  };
  await writeJsonAtomic(join(dir, 'metadata.json'), metadata);

  const ring = desktop.createFrameRing({
    fps: options.fps ?? 10,
    capacity: Math.max(10, Math.ceil((options.fps ?? 10) * 2)),
  });
  ring.start();
  await firstFrame(desktop, ring);

  let failure: unknown;
  let stopReason: StopReason | undefined;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const stop = (reason: StopReason) => {
    if (stopReason) return;
    stopReason = reason;
    emit({ type: 'stopping', reason });
    resolveStopped();
  };

  const writer = new SessionWriter(dir, (error) => {
    failure ??= error;
    emit({ type: 'error', error });
    stop('signal');
  });
  let secret = false;
  let paused = false;
  let unresolved = 0;
  let details: string | null = null;
  let held:
    | { pending: PendingEvent; focus: Promise<{ title: string } | null> | null; timer: NodeJS.Timeout }
    | undefined;

  // Input that went to the recorder's own terminal is dropped. Keys went to the window focused when
  // they were pressed (asked at each key press); a click went to the window focused after it (asked
  // when the click is committed, after its double-click window, once click-to-focus has acted).
  const keyFocus = new Map<number, Promise<{ title: string } | null>>();
  const focusOf = (action: RecordedAction) => {
    const atKey =
      action.action_type === 'type' || action.action_type === 'key' ? keyFocus.get(action.time) : undefined;
    for (const time of keyFocus.keys()) if (time <= action.time) keyFocus.delete(time);
    return atKey ?? desktop.activeWindow();
  };
  let admitted: Promise<void> = Promise.resolve();
  const write = (
    pending: PendingEvent,
    focus: Promise<{ title: string } | null> | null = null,
    element: Promise<AccessibleElement | null> | null = null,
  ) => {
    admitted = admitted.then(async () => {
      const { action_type } = pending.event;
      const replay =
        action_type === null || action_type === 'extract'
          ? null
          : await replays.heldAt(pending.event.timestamp * 1000);
      if (replay) {
        emit({
          type: 'ignored',
          action_type: action_type ?? 'end',
          reason: `given by a replay on this display (${replay.command}, pid ${replay.pid})`,
        });
        return;
      }
      const found = await element;
      if (found && !showsSecret(found)) pending.event.element = found;
      if (focus && (await focus)?.title === terminal?.title) {
        emit({
          type: 'ignored',
          action_type: pending.event.action_type ?? 'end',
          reason: 'typed or clicked in the recording terminal',
        });
        return;
      }
      void writer.add(pending).then((index) =>
        emit({
          type: 'event',
          index,
          action_type: pending.event.action_type,
          details: pending.event.action_details,
          time: pending.event.timestamp * 1000,
        }),
      );
    });
  };
  const release = () => {
    if (!held) return;
    clearTimeout(held.timer);
    write(held.pending, held.focus);
    held = undefined;
  };
  const takeDetails = () => {
    const note = details;
    details = null;
    return note;
  };
  // Each action's PRE frame is kept when its first input arrives: the ring holds two seconds, and a
  // slow typing burst is written only when it ends, when its first frames are long gone.
  const preFrames = new Map<number, RawFrame | undefined>();
  // Secret typing is never written. The recorder sees its keys (as the person's own keyboard does)
  // and keeps them in memory only, to leave out any element that shows them (a field's text, a
  // title); nothing is looked up while it is typed.
  let secretKeys = 0;
  let secretTyped = '';
  const secretTexts: string[] = [];
  const showsSecret = (element: AccessibleElement) => {
    const secrets = secretTyped ? [...secretTexts, secretTyped] : secretTexts;
    const strings = [
      element.name,
      element.label ?? '',
      element.window.name,
      element.text ?? '',
      ...element.path.map((step) => step.name),
    ];
    return secrets.some((typed) => strings.some((value) => value.includes(typed)));
  };
  // The element an action is about is looked up beside the hooks as the action starts (the element
  // under a press or a wheel, the focus at a burst's first key), never delaying them.
  let lastHook: HookEvent | undefined;
  const elements = new Map<number, Promise<AccessibleElement | null>>();
  const keepPreFrame = (time: number) => {
    preFrames.set(time, ring.frameBefore(time));
    const hook = lastHook;
    // Nothing is looked up while a secret is typed: the app may show it (a title, a field).
    if (hook?.time !== time || secret) return;
    if (hook.type === 'mousedown' || hook.type === 'wheel') {
      elements.set(
        time,
        lookUp((a11y) => a11y.elementAt({ x: hook.x, y: hook.y })),
      );
    } else if (hook.type === 'keydown') {
      elements.set(
        time,
        lookUp((a11y) => a11y.focused()),
      );
    }
  };
  /** The element of an action: for typing, the focused one with its text after the burst (never a secret's). */
  const elementOf = (action: RecordedAction): Promise<AccessibleElement | null> | null => {
    const started = elements.get(action.time) ?? null;
    for (const time of elements.keys()) if (time <= action.time) elements.delete(time);
    if (action.action_type === 'extract') return null;
    // A key goes to the element focused when it went down; its text is the typing's business.
    if (action.action_type === 'key') return started?.then((e) => e && identityOf(e)) ?? null;
    if (action.action_type !== 'type') return started;
    const secret = 'secret' in action.action_details && action.action_details.secret;
    const keysAtCommit = secretKeys;
    // The burst went to the field focused at its first key; its text is read from that field now
    // (the action that ended the burst may already have moved the focus on).
    return (started ?? lookUp((a11y) => a11y.focused())).then(async (field) => {
      if (!field) return null;
      if (secret || isSecretElement(field)) return identityOf(field);
      const now = await lookUp((a11y) => a11y.find(field));
      const text = now?.length === 1 ? now[0]?.text : undefined;
      // A secret typed since the burst ended would be in that text.
      return typeof text === 'string' && secretKeys === keysAtCommit ? { ...field, text } : identityOf(field);
    });
  };
  const takePreFrame = (time: number) => {
    const frame = preFrames.has(time) ? preFrames.get(time) : ring.frameBefore(time);
    for (const kept of preFrames.keys()) if (kept <= time) preFrames.delete(kept);
    return frame;
  };
  const commit = (action: RecordedAction) => {
    release();
    const before = takePreFrame(action.time);
    if ('unresolved' in action.action_details && action.action_details.unresolved) unresolved += 1;
    const pending: PendingEvent = {
      event: {
        action_type: action.action_type,
        action_details: action.action_details,
        timestamp: action.time / 1000,
        details: takeDetails(),
        ...(before ? {} : { pre_frame: 'late' }),
      } as PendingEvent['event'],
      frame: before ?? ring.latest(),
    };
    const focus = terminal ? focusOf(action) : null;
    const element = elementOf(action);
    if (
      action.action_type === 'key' &&
      'key' in action.action_details &&
      action.action_details.key === 'ctrl+c'
    ) {
      held = { pending, focus, timer: setTimeout(release, INTERRUPT_HOLD_MS) };
      return;
    }
    write(pending, focus, element);
  };
  const aggregator = new ActionAggregator(commit, {
    ...options.aggregation,
    isSecret: () => secret,
    onActionStart: keepPreFrame,
  });

  const status = (): ControlStatus => ({ session_id: sessionId, events: writer.count, secret, paused });
  const annotate = (annotation: Annotation) => {
    if (annotation.type === 'details') {
      details = details ? `${details}\n${annotation.text}` : annotation.text;
      return;
    }
    aggregator.flush();
    release();
    const note = takeDetails();
    write({
      event: {
        action_type: 'extract',
        action_details: { query: annotation.query, values: annotation.values },
        timestamp: epochNow() / 1000,
        details: note,
      },
      frame: ring.latest(),
    });
  };
  const handleControl = async (request: ControlRequest): Promise<ControlStatus> => {
    if (stopReason) throw new Error('the recording is stopping');
    if (request.type === 'extract' || request.type === 'details') annotate(request);
    else if (request.type === 'secret') setSecret(request.on);
    else if (request.type === 'stop') stop('control');
    return status();
  };
  const setSecret = (on: boolean) => {
    if (secret === on) return;
    aggregator.flush();
    if (!on && secretTyped) secretTexts.push(secretTyped);
    secretTyped = '';
    secret = on;
    emit({ type: 'secret', on });
  };
  const askAnnotation = async () => {
    if (!options.promptAnnotation) {
      emit({ type: 'annotation-requested' });
      return;
    }
    paused = true;
    aggregator.flush();
    release();
    emit({ type: 'paused' });
    try {
      const annotation = await options.promptAnnotation();
      if (annotation && !stopReason) annotate(annotation);
    } finally {
      paused = false;
      emit({ type: 'resumed' });
    }
  };

  // A paste is recorded as the text it pasted, typed: the clipboard is read when the chord goes down
  // (before the app takes it), and the input after it waits, in order, until the read is back. A
  // clipboard without text (an image, nothing, too much) leaves the chord as a key press.
  let pasteQueue: HookEvent[] | undefined;
  let pasteRead: Promise<void> = Promise.resolve();
  const feed = (event: HookEvent, chord?: string) => {
    if (pasteQueue) {
      pasteQueue.push(event);
      return;
    }
    if (event.type !== 'keydown' || chord === undefined || !PASTE_CHORDS.has(chord)) {
      aggregator.push(event);
      return;
    }
    if (secret) {
      aggregator.push({ ...event, text: '' });
      return;
    }
    pasteQueue = [];
    pasteRead = desktop.readClipboard().then((text) => {
      aggregator.push(text === null ? event : { ...event, text });
      const queued = pasteQueue ?? [];
      pasteQueue = undefined;
      for (const next of queued) feed(next, chordOfEvent(next));
    });
  };

  /** A key went down: which window had the focus (the terminal is left out), and a secret's keys. */
  const noteKey = (event: HookKeyEvent) => {
    if (terminal) keyFocus.set(event.time, desktop.activeWindow());
    if (!secret) return;
    secretKeys += 1;
    secretTyped += event.text ?? '';
  };
  const onHook = (event: HookEvent) => {
    if (stopReason) return;
    const chord = chordOfEvent(event);
    if (chord !== undefined) {
      if (chord === hotkeys.stop) return stop('hotkey');
      if (chord === hotkeys.secret) return setSecret(!secret);
      if (chord === hotkeys.annotate) {
        if (!paused) void askAnnotation();
        return;
      }
    }
    if (paused) return;
    if (event.type === 'keydown') noteKey(event);
    lastHook = event;
    feed(event, chord);
  };

  // A replay that took the display since the check above is seen too: it says since when.
  const replays = new ReplayWatch();
  const control = await startControlServer(sessionId, handleControl);
  let hooks: HookSubscription | undefined;
  const ticker = setInterval(() => aggregator.tick(epochNow()), 50);
  const limit =
    options.maxDurationMs === undefined
      ? undefined
      : setTimeout(() => stop('max-duration'), options.maxDurationMs);
  const onAbort = () => stop(options.signal?.reason === 'interrupt' ? 'interrupt' : 'signal');
  let events = 0;
  let unlisten: (() => void) | undefined;
  try {
    hooks = await desktop.startHooks(onHook, { layoutText: true });
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    emit({ type: 'started', sessionId, dir, screen, hotkeys });
    unlisten = options.annotateFrom?.(() => {
      if (!paused && !stopReason) void askAnnotation();
    });
    await stopped;
  } finally {
    unlisten?.();
    options.signal?.removeEventListener('abort', onAbort);
    clearInterval(ticker);
    clearTimeout(limit);
    await hooks?.stop();
    await pasteRead;
    aggregator.flush();
    if (held && stopReason === 'interrupt') {
      clearTimeout(held.timer);
      held = undefined;
    }
    release();
    await admitted;
    events = writer.count;
    if (unresolved > 0) {
      emit({
        type: 'warning',
        message:
          `${unresolved} typing event${unresolved === 1 ? '' : 's'} typed characters mime could not read from the keys ` +
          '(an input method, or a key without a code): their text is incomplete and marked "unresolved"; ' +
          'fix it with `mime edit` after reflecting.',
      });
    }
    write({
      event: {
        action_type: null,
        action_details: {},
        timestamp: epochNow() / 1000,
        details: takeDetails(),
      },
      frame: ring.latest(),
    });
    await admitted;
    await writer.drain();
    await ring.stop();
    await control.close();
    replays.stop();
    if (ownDesktop) await desktop.close();
  }
  if (failure) throw failure;
  return { sessionId, dir, events, durationMs: epochNow() - started, stopReason: stopReason ?? 'signal' };
}
