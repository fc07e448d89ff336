import { createDesktop, epochNow, type HookSubscription } from '@mime-desktop/os-io';
import { ActionAggregator } from './aggregate.ts';
import { ElementLookup } from './element-lookup.ts';
import { EventWriter } from './event-writer.ts';
import { HookRouter } from './hook-router.ts';
import { launchForRecording } from './launch.ts';
import { PreFrames } from './pre-frames.ts';
import { hotkeyChords, type RecordingResult, type RecordOptions } from './record-options.ts';
import { assertRecordableSession } from './recordable-session.ts';
import { RecordingControl } from './recording-control.ts';
import { RecordingStop } from './recording-stop.ts';
import { ReplayWatch } from './replay-watch.ts';
import { SecretTyping } from './secret-typing.ts';
import { openSession } from './session.ts';
import { TerminalFilter } from './terminal-filter.ts';
import { WindowLookup } from './window-lookup.ts';

/**
 * Records a task until it is stopped (signal, stop hotkey, control channel or `maxDurationMs`), writing
 * `<home>/recordings/<session_id>/` as it goes: metadata.json, then for each action its PRE frame
 * (the last frame captured before the action's first input) and its manifest line, and at the end a
 * `null` end-marker event with the final frame.
 */
export async function record(options: RecordOptions): Promise<RecordingResult> {
  const emit = options.onEvent ?? (() => undefined);
  const hotkeys = hotkeyChords(options.hotkeys);
  // No recording while a replay drives the display; input a replay gives later is dropped (the writer).
  await ReplayWatch.refuseWhileReplaying();
  const ownDesktop = options.desktop === undefined;
  if (ownDesktop) await assertRecordableSession();
  const desktop = options.desktop ?? (await createDesktop({ failSafe: false }));
  const secret = new SecretTyping();
  const elements = new ElementLookup(desktop, secret);
  const windows = new WindowLookup(desktop, secret);
  const terminal = await TerminalFilter.start(desktop, options.ignoreTerminal ?? false);
  const setup = options.launch ? await launchForRecording(options.launch) : undefined;
  const started = epochNow();
  const {
    sessionId,
    dir,
    screen,
    control: server,
  } = await openSession(options.home, options, desktop, setup);
  const frames = await PreFrames.start(desktop, options.fps ?? 10).catch(async (error: unknown) => {
    await server.close();
    throw error;
  });

  const stop = new RecordingStop(emit);
  // A replay that took the display since the check above is seen too: it says since when.
  const replays = new ReplayWatch();
  const writer = new EventWriter({
    dir,
    frames,
    elements,
    windows,
    terminal,
    secret,
    replays,
    emit,
    onError: (e) => stop.fail(e),
  });
  const aggregator = new ActionAggregator((action) => writer.commit(action), {
    ...options.aggregation,
    isSecret: () => secret.on,
    onActionStart: (time) => {
      frames.keep(time);
      elements.startAt(time);
      windows.startAt(time);
    },
  });
  const { promptAnnotation } = options;
  const control = new RecordingControl({
    sessionId,
    aggregator,
    writer,
    secret,
    stop,
    emit,
    promptAnnotation,
  });
  const router = new HookRouter({
    hotkeys,
    desktop,
    aggregator,
    control,
    stop,
    secret,
    terminal,
    elements,
    windows,
  });
  server.serve((request) => control.handle(request));
  const ticker = setInterval(() => aggregator.tick(epochNow()), 50);
  const unwatch = stop.watch(options.signal, options.maxDurationMs);
  let hooks: HookSubscription | undefined;
  let unlisten: (() => void) | undefined;
  let events = 0;
  try {
    await elements.woken;
    hooks = await desktop.startHooks(router.onHook, { layoutText: true });
    emit({ type: 'started', sessionId, dir, screen, hotkeys });
    unlisten = options.annotateFrom?.(() => {
      if (!control.paused && !stop.reason) void control.askAnnotation();
    });
    await stop.stopped;
  } finally {
    unlisten?.();
    unwatch();
    clearInterval(ticker);
    await hooks?.stop();
    elements.stop();
    await router.pasted;
    aggregator.flush();
    events = await writer.finish(stop.reason === 'interrupt');
    await frames.stop();
    await server.close();
    replays.stop();
    if (ownDesktop) await desktop.close();
  }
  if (stop.failure) throw stop.failure;
  return { sessionId, dir, events, durationMs: epochNow() - started, stopReason: stop.reason ?? 'signal' };
}
