import type { Desktop } from '@mime-desktop/os-io';
import { TypedText } from '../kernel/typed-text.ts';
import type { ResolvedAction } from './computer-action.ts';
import { sleep } from './screen-settle.ts';

/** Wheel notches a scroll turns, and characters a typing types, between two looks at the run's signal (its wall time, Ctrl+C). */
const SCROLL_CHUNK = 10;
const TYPE_CHUNK = 200;

/**
 * An action as executed: a typing one carries what it types ({@link TypedText}: its secrets in
 * place, shown as `{name}`), which the events and reports of the action never hold.
 */
export type ExecutedAction =
  | Exclude<ResolvedAction, { action: 'type' }>
  | { action: 'type'; text: TypedText };

/**
 * `action` to execute: a typing action types `typed` (the step's or the agent's text with the secrets
 * the workflow or the agent put there) when that is its text as shown; another text (the recorded
 * one, an edited value) is typed as it is.
 */
export function toExecuted(action: ResolvedAction, typed: TypedText | null = null): ExecutedAction {
  if (action.action !== 'type') return action;
  return { action: 'type', text: typed?.shown === action.text ? typed : new TypedText(action.text) };
}

/**
 * Runs an action on the desktop, a typing action with `typeDelayMs` after each key when given (else
 * the desktop's default). A long scroll or text is done in parts, and stops between two when
 * `signal` aborts (the run's wall time ran out).
 */
export async function executeAction(
  desktop: Desktop,
  action: ExecutedAction,
  typeDelayMs: number | null = null,
  signal?: AbortSignal,
): Promise<void> {
  switch (action.action) {
    case 'left_click':
      return desktop.click(action.point, { button: 'left' });
    case 'double_click':
      return desktop.click(action.point, { button: 'left', clicks: 2 });
    case 'right_click':
      return desktop.click(action.point, { button: 'right' });
    case 'middle_click':
      return desktop.click(action.point, { button: 'middle' });
    case 'mouse_move':
      return desktop.movePointer(action.point);
    case 'left_click_drag':
      return desktop.drag(action.point, action.endPoint, { button: 'left' });
    case 'type': {
      const text = action.text.value;
      const options = typeDelayMs === null ? {} : { keyDelayMs: typeDelayMs };
      // A long text is typed in parts, the run's signal looked at between two.
      const parts = [...text].reduce<string[]>((all, char, i) => {
        if (i % TYPE_CHUNK === 0) all.push('');
        all[all.length - 1] += char;
        return all;
      }, []);
      for (const part of parts) {
        signal?.throwIfAborted();
        await desktop.typeText(part, options);
      }
      return;
    }
    case 'key':
      return desktop.pressKey(action.keys);
    case 'scroll':
      for (let done = 0; done < action.amount; done += SCROLL_CHUNK) {
        signal?.throwIfAborted();
        const at = done === 0 && action.point ? { at: action.point } : {};
        await desktop.scroll(action.direction, Math.min(SCROLL_CHUNK, action.amount - done), at);
      }
      return;
    case 'wait':
      return sleep(action.seconds * 1000, desktop.signal);
  }
}
