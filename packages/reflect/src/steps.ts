import {
  type ActionManifestEvent,
  isWholeWindow,
  type ManifestLine,
  STEP_TYPE_OF_EVENT,
  type StepActionType,
  type StepSource,
  targetBoxAround,
} from '@mime-desktop/schema';

/** One recorded action to reflect, with its PRE and POST frames. */
export interface ReflectStep {
  /** Step number, from 0, in recording order. */
  i: number;
  /** The event, as read from the manifest. */
  event: ActionManifestEvent;
  /** Its 1-based line in manifest.jsonl (for messages). */
  line: number;
  actionType: StepActionType;
  /** The recorded value: typed text, key chord or extract query; null for pointer actions and secret typing. */
  recordedValue: string | null;
  /** True for secret typing: no text was recorded, the value becomes a sensitive param. */
  secret: boolean;
  /** Variable an EXTRACT step stores its value under. */
  variableName: string | null;
  /** PRE frame, relative to the folder (the frame before the action). */
  pre: string;
  /** POST frame: the next event's PRE (the step's own PRE for EXTRACT and for the last step). */
  post: string;
  /** A note from a details annotation. */
  details: string | null;
  source: StepSource;
}

const STOP_WORDS = new Set([
  'the',
  'a',
  'an',
  'of',
  'what',
  'is',
  'which',
  'it',
  'this',
  'that',
  'to',
  'from',
  'for',
  'on',
  'in',
  'screen',
]);

/** `the song now playing?` -> `song_now_playing`; `the price of it` -> `price`. */
function variableFromQuery(query: string): string {
  const words = query
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w && !STOP_WORDS.has(w));
  const name = words.slice(0, 4).join('_') || 'value';
  return /^[a-z_]/.test(name) ? name : `v_${name}`;
}

function recordedValue(event: ActionManifestEvent): string | null {
  switch (event.action_type) {
    case 'type':
      return event.action_details.secret ? null : event.action_details.text;
    case 'key':
      return event.action_details.key;
    case 'extract':
      return event.action_details.query;
    default:
      return null;
  }
}

function sourceOf(
  event: ActionManifestEvent,
  index: number,
  pre: string,
  screen?: { width: number; height: number },
): StepSource {
  const d = event.action_details;
  const point = 'x' in d && 'y' in d ? { x: d.x, y: d.y } : null;
  const endPoint = 'to_x' in d ? { x: d.to_x, y: d.to_y } : null;
  return {
    event_index: index,
    screenshot: pre,
    point,
    end_point: endPoint,
    box: point ? targetBoxAround(point, screen) : null,
    ...(point && event.window ? { window: event.window } : {}),
  };
}

/**
 * The steps of a recording: every event but the end marker, paired PRE/POST. Extract variables get
 * unique names from their queries.
 */
export function buildSteps(
  lines: readonly ManifestLine[],
  screen?: { width: number; height: number },
): ReflectStep[] {
  const steps: ReflectStep[] = [];
  const names = new Set<string>();
  for (const [index, { event, line }] of lines.entries()) {
    if (event.action_type === null) continue;
    const pre = event.screenshot ?? '';
    const next = lines[index + 1]?.event.screenshot;
    const isExtract = event.action_type === 'extract';
    let variableName: string | null = null;
    if (isExtract) {
      const base = variableFromQuery(event.action_details.query);
      variableName = base;
      for (let n = 2; names.has(variableName); n += 1) variableName = `${base}_${n}`;
      names.add(variableName);
    }
    steps.push({
      i: steps.length,
      event: withoutWholeWindow(event),
      line,
      actionType: STEP_TYPE_OF_EVENT[event.action_type],
      recordedValue: recordedValue(event),
      secret: event.action_type === 'type' && event.action_details.secret,
      variableName,
      pre,
      post: isExtract || !next ? pre : next,
      details: event.details,
      source: sourceOf(event, index, pre, screen),
    });
  }
  return steps;
}

/**
 * The event without an element that is a whole window or web document (a recording made before the
 * recorder dropped them): no target to name or to find at replay, where pixels can find the place.
 */
function withoutWholeWindow(event: ActionManifestEvent): ActionManifestEvent {
  if (!event.element || !isWholeWindow(event.element)) return event;
  const { element: _, ...rest } = event;
  return rest;
}

/** A short human description of a step, for progress lines and messages. */
export function describeStep(step: ReflectStep): string {
  const d = step.event.action_details;
  if (step.secret) return 'secret typing';
  if (step.recordedValue !== null) return `${step.event.action_type} ${JSON.stringify(step.recordedValue)}`;
  if ('x' in d) return `${step.event.action_type} at (${Math.round(d.x)}, ${Math.round(d.y)})`;
  return step.event.action_type;
}
