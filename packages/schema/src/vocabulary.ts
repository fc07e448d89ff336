/**
 * One vocabulary for what a person does, in the three forms mime keeps it: a recorded manifest event
 * (`right_click` with its button), a workflow step (`RIGHT_CLICK`) and a replay action
 * (`right_click` at a point). The recorder, reflect, replay and heal all map through here; every map
 * is exhaustive, so a kind nobody maps is a type error, never a silent left click.
 */
import type { ActionManifestEvent, MouseButton, RecordedActionType } from './recording.ts';
import type { RunAction } from './run.ts';
import type { StepActionType } from './workflow.ts';

/** The step type of each recorded event type. */
export const STEP_TYPE_OF_EVENT = {
  click: 'CLICK',
  double_click: 'DOUBLE_CLICK',
  right_click: 'RIGHT_CLICK',
  middle_click: 'MIDDLE_CLICK',
  type: 'TYPE',
  key: 'KEYPRESS',
  scroll: 'SCROLL',
  drag: 'DRAG',
  extract: 'EXTRACT',
} as const satisfies Record<RecordedActionType, StepActionType>;

/** A one-to-one map turned around: its values become the keys. */
type Inverse<T extends Record<string, string>> = { [K in keyof T as T[K]]: K };
const invert = <T extends Record<string, string>>(map: T): Inverse<T> =>
  Object.fromEntries(Object.entries(map).map(([key, value]) => [value, key])) as Inverse<T>;

/** The recorded event type of each step type. */
export const EVENT_TYPE_OF_STEP = invert(STEP_TYPE_OF_EVENT) satisfies Record<
  StepActionType,
  RecordedActionType
>;

type ClickEventType = 'click' | 'double_click' | 'right_click' | 'middle_click';
type ClickAction = 'left_click' | 'double_click' | 'right_click' | 'middle_click';

/** The button each click event type presses. */
export const BUTTON_OF_CLICK = {
  click: 'left',
  double_click: 'left',
  right_click: 'right',
  middle_click: 'middle',
} as const satisfies Record<ClickEventType, MouseButton>;

/** The click event type of a single press of each button. */
export const CLICK_OF_BUTTON = {
  left: 'click',
  right: 'right_click',
  middle: 'middle_click',
} as const satisfies Record<MouseButton, ClickEventType>;

const ACTION_OF_CLICK = {
  click: 'left_click',
  double_click: 'double_click',
  right_click: 'right_click',
  middle_click: 'middle_click',
} as const satisfies Record<ClickEventType, ClickAction>;

const CLICK_OF_ACTION = invert(ACTION_OF_CLICK) satisfies Record<ClickAction, ClickEventType>;

type Point = { x: number; y: number };

export interface ActionOfEventOptions {
  /** Moves a recorded point to where it is now (the re-found target). Default: where it was. */
  map?: (point: Point) => Point;
  /** What a `type` event types: the step's rendered value. Default: the recorded text. */
  text?: string | null;
}

/**
 * A recorded event as the action replay executes; null for an extract (it reads, it does not act).
 * A scroll turns the vertical wheel when it has a vertical part, else the horizontal one.
 */
export function actionOfEvent(
  event: ActionManifestEvent,
  options: ActionOfEventOptions = {},
): RunAction | null {
  const map = options.map ?? ((p: Point) => p);
  switch (event.action_type) {
    case 'click':
    case 'double_click':
    case 'right_click':
    case 'middle_click': {
      const { x, y } = event.action_details;
      return { action: ACTION_OF_CLICK[event.action_type], point: map({ x, y }) };
    }
    case 'drag': {
      const d = event.action_details;
      return {
        action: 'left_click_drag',
        point: map({ x: d.x, y: d.y }),
        endPoint: map({ x: d.to_x, y: d.to_y }),
      };
    }
    case 'scroll': {
      const d = event.action_details;
      const vertical = d.dy !== 0;
      const amount = Math.abs(vertical ? d.dy : d.dx);
      const direction = vertical ? (d.dy > 0 ? 'down' : 'up') : d.dx > 0 ? 'right' : 'left';
      return { action: 'scroll', direction, amount, point: map({ x: d.x, y: d.y }) };
    }
    case 'type':
      return { action: 'type', text: options.text ?? event.action_details.text };
    case 'key':
      return { action: 'key', keys: event.action_details.key };
    case 'extract':
      return null;
  }
}

/** An event's type and details, as the recorder writes them. */
export type EventOfAction = ActionManifestEvent extends infer E
  ? E extends ActionManifestEvent
    ? Pick<E, 'action_type' | 'action_details'>
    : never
  : never;

/**
 * The recorded event of an action (heal writes the agent's actions back so); null for what a
 * recording never holds (a pointer move, a wait). A click keeps its button; typed text is kept as it
 * is (the caller decides whether it may be stored).
 */
export function eventOfAction(action: RunAction): EventOfAction | null {
  switch (action.action) {
    case 'left_click':
    case 'double_click':
    case 'right_click':
    case 'middle_click': {
      const type = CLICK_OF_ACTION[action.action];
      const { x, y } = action.point;
      return { action_type: type, action_details: { button: BUTTON_OF_CLICK[type], x, y } };
    }
    case 'left_click_drag':
      return {
        action_type: 'drag',
        action_details: {
          button: 'left',
          x: action.point.x,
          y: action.point.y,
          to_x: action.endPoint.x,
          to_y: action.endPoint.y,
        },
      };
    case 'scroll': {
      const step =
        action.direction === 'down' || action.direction === 'right' ? action.amount : -action.amount;
      const vertical = action.direction === 'up' || action.direction === 'down';
      return {
        action_type: 'scroll',
        action_details: {
          x: action.point?.x ?? 0,
          y: action.point?.y ?? 0,
          dx: vertical ? 0 : step,
          dy: vertical ? step : 0,
        },
      };
    }
    case 'type':
      return { action_type: 'type', action_details: { text: action.text, secret: false } };
    case 'key':
      return { action_type: 'key', action_details: { key: action.keys } };
    case 'mouse_move':
    case 'wait':
      return null;
  }
}

/** The step type of an action; null for what no step holds (a pointer move, a wait). */
export function stepTypeOfAction(action: RunAction): StepActionType | null {
  const event = eventOfAction(action);
  return event ? STEP_TYPE_OF_EVENT[event.action_type] : null;
}
