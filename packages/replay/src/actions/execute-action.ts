import type { Desktop } from '@mime-desktop/os-io';
import { renderTemplate } from '@mime-desktop/schema';
import type { ResolvedAction } from './computer-action.ts';
import { sleep } from './screen-settle.ts';

/** Wheel notches a scroll turns between two looks at the run's signal (its wall time, Ctrl+C). */
const SCROLL_CHUNK = 10;

/**
 * Runs an action on the desktop; `{name}` placeholders of sensitive params are typed as their real
 * values, with `typeDelayMs` after each key when given (else the desktop's default). A long scroll
 * is turned in chunks, and stops between two when `signal` aborts (the run's wall time ran out).
 */
export async function executeAction(
  desktop: Desktop,
  action: ResolvedAction,
  secrets: ReadonlyMap<string, string>,
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
    case 'type':
      return desktop.typeText(
        renderTemplate(action.text, Object.fromEntries(secrets)),
        typeDelayMs === null ? {} : { keyDelayMs: typeDelayMs },
      );
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
