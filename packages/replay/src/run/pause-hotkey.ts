/**
 * The pause hotkey of a run, listened to on the desktop's global hooks: it toggles the run's pause
 * gate, and the gate is told which keys the user holds (no action of mime's overlaps them).
 */
import type { Desktop, HookSubscription } from '@mime-desktop/os-io';
import { formatKeyChord, isMimeError, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';
import type { PauseGate } from '../kernel/pause-gate.ts';

/**
 * Listens for `hotkey` (and the keys held) on the desktop's global hooks; `null` turns it off. Where
 * there are no hooks (Wayland), the hotkey alone, as the compositor binds it (keys the user holds are
 * then not seen); where it binds none either, no hotkey (the caller's PauseControl still works).
 */
export async function listenForPauseHotkey(
  gate: PauseGate,
  desktop: Desktop,
  hotkey: string | null,
): Promise<HookSubscription | null> {
  if (!hotkey) return null;
  try {
    return await listenToHooks(gate, desktop, hotkey);
  } catch (error) {
    if (!unsupported(error)) throw error;
    return desktop
      .watchHotkey(hotkey, () => gate.toggle())
      .catch((bindError: unknown) => {
        if (unsupported(bindError)) return null;
        throw bindError;
      });
  }
}

function listenToHooks(gate: PauseGate, desktop: Desktop, hotkey: string): Promise<HookSubscription> {
  const chord = normalizeKeyChord(hotkey);
  return desktop.startHooks((event) => {
    if (event.type === 'keyup') {
      gate.keyUp(event.key, event.modifiers);
      return;
    }
    if (event.type !== 'keydown') return;
    const { key, modifiers } = event;
    const isHotkey = key !== null && formatKeyChord({ modifiers, key } as KeyChord) === chord;
    gate.keyDown(modifiers, isHotkey ? key : null);
  });
}

const unsupported = (error: unknown) => isMimeError(error) && error.code === 'MIME_UNSUPPORTED_PLATFORM';
