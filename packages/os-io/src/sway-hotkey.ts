/**
 * A hotkey on sway, where no program can watch the keyboard: sway itself binds the chord to a `nop`
 * command and tells mime through an IPC `binding` event. The binding is removed on `stop()`; a
 * binding of the user's on the same chord is replaced while mime runs.
 */
import { type KeyChord, type Modifier, parseKeyChord } from '@mime-desktop/schema';
import { UnsupportedPlatformError } from './errors.ts';
import { IPC, SwayIpc } from './sway-ipc.ts';
import { keysymName } from './wtype-keyboard.ts';

/** sway's names of the modifiers. */
const SWAY_MODIFIERS: Record<Modifier, string> = { ctrl: 'Ctrl', alt: 'Mod1', shift: 'Shift', meta: 'Mod4' };
/** The binding event's type (i3 IPC event 5). */
const BINDING_EVENT = 5;

/** The chord as sway's `bindsym` writes it: `Ctrl+Mod1+Shift+Escape`. */
export function swayChord(chord: KeyChord): string {
  const key = keysymName(chord.key);
  if (key === null) throw new UnsupportedPlatformError(`sway cannot bind the key "${chord.key}"`);
  return [...chord.modifiers.map((m) => SWAY_MODIFIERS[m]), key].join('+');
}

export interface SwayHotkey {
  /** The chord bound, in mime's syntax. */
  readonly chord: string;
  stop(): Promise<void>;
}

/** Binds `chord` in the sway at `socket`; `onPress` runs each time it is pressed. */
export async function bindSwayHotkey(
  socket: string,
  chord: string,
  onPress: () => void,
): Promise<SwayHotkey> {
  const parsed = parseKeyChord(chord);
  const keys = swayChord(parsed);
  const tag = `mime-hotkey-${process.pid}-${keys}`;
  const ipc = await SwayIpc.open(socket);
  try {
    ipc.onEvent = (type, payload) => {
      const command = (payload as { binding?: { command?: string } }).binding?.command;
      if (type === BINDING_EVENT && command === `nop ${tag}`) onPress();
    };
    await ipc.request(IPC.subscribe, JSON.stringify(['binding']));
    await ipc.command(`bindsym --no-repeat ${keys} nop ${tag}`);
  } catch (error) {
    ipc.close();
    throw error;
  }
  return {
    chord,
    stop: async () => {
      await ipc.command(`unbindsym ${keys}`).catch(() => undefined);
      ipc.close();
    },
  };
}
