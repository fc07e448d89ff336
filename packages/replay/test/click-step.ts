/** A recorded click as the locator tests give it: at `point`, its 160x64 crop around it. */
import type { AccessibleElement, SourceWindow, WorkflowStep } from '@mime-desktop/schema';

export function clickStep(
  point: { x: number; y: number },
  on: { element?: AccessibleElement | undefined; window?: SourceWindow | undefined } = {},
): WorkflowStep {
  return {
    i: 0,
    expected_current_state: '',
    intent: 'click',
    target: { primary: 'the target', fallback: null, ...(on.element ? { element: on.element } : {}) },
    action_type: 'CLICK',
    action_value: null,
    post_action: [],
    variable_name: null,
    source: {
      event_index: 0,
      screenshot: 'screenshots/0.png',
      point,
      end_point: null,
      box: { x: point.x - 80, y: point.y - 32, width: 160, height: 64 },
      ...(on.window ? { window: on.window } : {}),
    },
  };
}
