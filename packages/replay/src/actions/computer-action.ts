/**
 * The action vocabulary the agent executes, in logical screen pixels, and its one-line description for
 * logs and the person watching.
 */
import type { LogicalPoint } from '@mime-desktop/os-io';
import type { RunAction } from '@mime-desktop/schema';

/**
 * An action ready to execute, in logical screen pixels; `text` may hold `{name}` placeholders of
 * secrets. The run contract's action, as events and reports show it.
 */
export type ResolvedAction = RunAction;

const at = (p: LogicalPoint) => `(${p.x}, ${p.y})`;

/**
 * One line for logs and the person watching: `left_click at (157, 365)`, `type "Faint"`. The switch
 * has no default: an action added to `RunAction` is a compile error here until it is described.
 */
export function describeAction(action: ResolvedAction): string {
  switch (action.action) {
    case 'left_click_drag':
      return `left_click_drag from ${at(action.point)} to ${at(action.endPoint)}`;
    case 'type':
      return `type ${JSON.stringify(action.text)}`;
    case 'key':
      return `key ${action.keys}`;
    case 'scroll':
      return `scroll ${action.direction} ${action.amount}${action.point ? ` at ${at(action.point)}` : ''}`;
    case 'wait':
      return `wait ${action.seconds} s`;
    case 'left_click':
    case 'double_click':
    case 'right_click':
    case 'middle_click':
    case 'mouse_move':
      return `${action.action} at ${at(action.point)}`;
  }
}
