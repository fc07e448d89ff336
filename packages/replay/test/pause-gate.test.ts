import type { Desktop, HookEvent } from '@mime-desktop/os-io';
import { sleep } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';
import { PauseControl, PauseGate } from '../src/kernel/pause-gate.ts';
import { listenForPauseHotkey } from '../src/run/pause-hotkey.ts';

/** A desktop whose hooks are fed by the test. */
function hookedDesktop(): { desktop: Desktop; send: (event: Partial<HookEvent>) => void } {
  let listener: ((event: HookEvent) => void) | undefined;
  const desktop = {
    startHooks: async (onEvent: (event: HookEvent) => void) => {
      listener = onEvent;
      return { stop: async () => undefined };
    },
  } as unknown as Desktop;
  const send = (event: Partial<HookEvent>) =>
    listener?.({ time: 0, keycode: 0, modifiers: [], ...event } as HookEvent);
  return { desktop, send };
}

/** A gate listening for the default hotkey on hooks the test feeds. */
async function listeningGate(gate = new PauseGate(() => undefined)) {
  const { desktop, send } = hookedDesktop();
  await listenForPauseHotkey(gate, desktop, 'ctrl+alt+shift+p');
  return { gate, send };
}

const held = ['ctrl', 'alt', 'shift'] as const;
/** Whether `promise` settles within 30 ms (a gate that holds stays pending). */
const settled = async (promise: Promise<void>) =>
  Promise.race([promise.then(() => true), sleep(30).then(() => false)]);

describe('PauseGate on the hotkey', () => {
  it('resumes once the hotkey and its modifiers are let go, not while they are held', async () => {
    const changes: boolean[] = [];
    const { gate, send } = await listeningGate(new PauseGate((paused) => changes.push(paused)));
    send({ type: 'keydown', key: 'p', modifiers: [...held] });
    expect(gate.paused).toBe(true);
    send({ type: 'keyup', key: 'p', modifiers: [...held] });
    send({ type: 'keyup', key: 'shift', modifiers: ['ctrl', 'alt'] });
    send({ type: 'keyup', key: 'alt', modifiers: ['ctrl'] });
    send({ type: 'keyup', key: 'ctrl', modifiers: [] });
    // Resumed by the same chord: said at once, acted on once every key is up.
    send({ type: 'keydown', key: 'p', modifiers: [...held] });
    expect(changes).toEqual([true, false]);
    const waiting = gate.wait(new AbortController().signal);
    expect(await settled(waiting)).toBe(false);
    send({ type: 'keyup', key: 'p', modifiers: [...held] });
    send({ type: 'keyup', key: 'ctrl', modifiers: ['alt', 'shift'] });
    expect(await settled(waiting)).toBe(false);
    send({ type: 'keyup', key: 'shift', modifiers: ['alt', 'shift'] });
    expect(await settled(waiting)).toBe(false);
    // The last modifier's own key up may still count it.
    send({ type: 'keyup', key: 'alt', modifiers: ['alt'] });
    expect(await settled(waiting)).toBe(true);
    expect(await settled(gate.wait(new AbortController().signal))).toBe(true);
  });

  it('holds an action while the user holds a modifier, paused or not', async () => {
    const { gate, send } = await listeningGate();
    send({ type: 'keydown', key: 'ctrl', modifiers: ['ctrl'] });
    const waiting = gate.wait(new AbortController().signal);
    expect(await settled(waiting)).toBe(false);
    send({ type: 'keydown', key: 'c', modifiers: ['ctrl'] });
    send({ type: 'keyup', key: 'c', modifiers: ['ctrl'] });
    expect(await settled(waiting)).toBe(false);
    send({ type: 'keyup', key: 'ctrl', modifiers: [] });
    expect(await settled(waiting)).toBe(true);
    // A plain key held does not hold the run (it is typing of the user's, not a chord in the way).
    send({ type: 'keydown', key: 'a', modifiers: [] });
    expect(await settled(gate.wait(new AbortController().signal))).toBe(true);
  });

  it('resumes at once from code (a UI button), and after a second at most when a key up is missed', async () => {
    const gate = new PauseGate(() => undefined);
    gate.set(true);
    const fromCode = gate.wait(new AbortController().signal);
    gate.set(false);
    expect(await settled(fromCode)).toBe(true);

    const { send } = await listeningGate(gate);
    gate.set(true);
    send({ type: 'keydown', key: 'p', modifiers: [...held] });
    gate.set(false);
    const started = performance.now();
    await gate.wait(new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    // The missed key up is not waited for again.
    expect(await settled(gate.wait(new AbortController().signal))).toBe(true);
  });

  it('stops waiting for keys when the run is aborted', async () => {
    const { gate, send } = await listeningGate();
    send({ type: 'keydown', key: 'alt', modifiers: ['alt'] });
    const controller = new AbortController();
    const waiting = gate.wait(controller.signal);
    controller.abort(new Error('fail-safe'));
    await expect(waiting).rejects.toThrow('fail-safe');
  });
});

describe('PauseControl', () => {
  it('holds a pause given before the run listens, and tells each command after', () => {
    const control = new PauseControl();
    control.pause();
    const told: boolean[] = [];
    const stop = control.listen((paused) => told.push(paused));
    control.resume();
    control.pause();
    stop();
    control.resume();
    expect(told).toEqual([true, false, true]);
    const later: boolean[] = [];
    control.listen((paused) => later.push(paused));
    expect(later).toEqual([]);
  });
});
