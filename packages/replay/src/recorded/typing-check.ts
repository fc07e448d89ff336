/**
 * The check after a typing or key step: typing by content where the accessibility tree can tell (the
 * focused field holds what was typed), else (and for a key) the change the recording shows in the
 * next frame must appear. Nothing to check after a pointer step: the next step's look or the
 * subtask's outcome tells.
 */
import { describeElement, followsWindow, type RunAction } from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import { describeAction } from '../actions/computer-action.ts';
import { liveImage } from '../actions/screen-text.ts';
import type { At } from '../kernel/run-memory.ts';
import { verifyChange } from './change-check.ts';
import {
  checkTypedText,
  type FieldTexts,
  failed,
  fieldTexts,
  identity,
  located,
  type TypedVerdict,
  typedTextCheckable,
} from './checks.ts';
import { RECORDED } from './layout-map.ts';
import { describeStep, type LoopParts, type SubtaskState } from './loop-parts.ts';
import type { RecordedStep } from './recorded-step.ts';
import { plainText } from './shown-values.ts';

/** Null when the step is verified (or nothing tells); else why the subtask cannot go on. */
export async function checkAfter(
  parts: LoopParts,
  recorded: RecordedStep,
  turn: At,
  state: SubtaskState,
  liveBefore: RgbaImage,
  action: RunAction,
): Promise<string | null> {
  if (action.action !== 'type' && action.action !== 'key') return null;
  if (action.action === 'type') {
    const byContent = await checkTyped(parts, recorded, turn, state, action.text);
    if (byContent !== 'unknown') return byContent;
  }
  const [pre, post] = await Promise.all([recorded.pre(), recorded.post()]);
  if (!post) return null;
  const { event } = recorded;
  // Other text than recorded (a new param value) changes the screen in the same place, not the same
  // way; so does a window of another size (its title is centred in another width).
  const otherText =
    action.action === 'type' && event.action_type === 'type' && action.text !== event.action_details.text;
  const byPlace = otherText || (await windowResized(parts, recorded)) ? 'always' : 'in-other-colours';
  return verifyChange(parts, {
    liveBefore,
    byPlace,
    check: 'after_step',
    step_i: recorded.step.i,
    before: pre,
    after: post,
    layout: state.layout ?? RECORDED,
    turn,
    reason: otherText
      ? `after ${describeStep(recorded.step)}, the screen did not change where the recording shows the typing`
      : `after ${describeStep(recorded.step)}, the screen did not change the way the recording shows`,
    description: describeAction(action),
  });
}

/**
 * Whether the step's field is one whose size follows its window (an editor's text area) and the
 * focused field, the same, has another size than recorded: the app's window is another size, so
 * what the window draws around its content (a title centred in its bar) is not where any one layout
 * maps the recording's change.
 */
async function windowResized(parts: LoopParts, recorded: RecordedStep): Promise<boolean> {
  const element = recorded.step.target.element;
  const was = element?.extents;
  if (!element || !was || !followsWindow(element)) return false;
  const a11y = await parts.ctx.devices.desktop.accessibility();
  const focused = await a11y?.focused().catch(() => null);
  const now = focused?.extents;
  if (!focused || !now || focused.role !== element.role || focused.name !== element.name) return false;
  return now.width !== was.width || now.height !== was.height;
}

/** The recorded field's texts for this run's typing (see fieldTexts), when the tree may be asked. */
function recordedField(recorded: RecordedStep, typed: string): FieldTexts | null {
  const { event } = recorded;
  if (event.action_type !== 'type' || !typedTextCheckable(recorded.step.target.element, typed)) return null;
  return fieldTexts(event.element?.text, event.action_details.text, typed);
}

/** A field made ready for typing: a note of what was done, or the failure that stops the subtask. */
interface Prepared {
  note: string | null;
  failure: string | null;
}

/**
 * Before typing: where the recording's field was empty and the focused field holds text (a value an
 * earlier run left, a pre-filled form), auto clears it first and says what it cleared; trace stops
 * there. Returns a note for the step's reason, or the failure.
 */
export async function prepareField(
  parts: LoopParts,
  recorded: RecordedStep,
  turn: At,
  typed: string,
): Promise<Prepared> {
  const none: Prepared = { note: null, failure: null };
  const field = recordedField(recorded, typed);
  if (field?.before.trim() !== '') return none;
  const a11y = await parts.ctx.devices.desktop.accessibility();
  const focused = await a11y?.focused().catch(() => null);
  if (!focused || plainText(focused.text) === null) return none;
  const held = JSON.stringify(focused.text);
  const what = `the focused ${describeElement(focused)} holds ${held} where the recording's field was empty`;
  return parts.mode.prefilled<Prepared>({
    clear: async () => {
      await parts.ctx.devices.desktop.pressKey('ctrl+a');
      await parts.ctx.devices.desktop.pressKey('BackSpace');
      parts.screen.acted();
      return { note: `cleared ${held} from the field first (the recording's was empty)`, failure: null };
    },
    stop: async () => {
      const pre = await recorded.pre();
      const reason = `before ${describeStep(recorded.step)}, ${what}`;
      const live = await parts.ctx.devices.desktop.captureFrame().then(liveImage);
      const { failure } = failed(recorded.step.i, 'before_step', reason, 0, 1, null, pre);
      const description = `type ${JSON.stringify(typed)}`;
      const read = 'app' as const;
      return {
        note: null,
        failure: await parts.verifier.fail({ ...failure, description, read }, turn, live),
      };
    },
  });
}

/**
 * After typing, by content: the focused field's text (from the accessibility tree) must be exactly
 * the recorded field's with this run's text put in (or, where the recording kept no text, hold what
 * was typed). 'unknown' when content cannot tell (no tree, a password field, a secret in the text):
 * the layout check decides then.
 */
async function checkTyped(
  parts: LoopParts,
  recorded: RecordedStep,
  turn: At,
  state: SubtaskState,
  typed: string,
): Promise<string | null | 'unknown'> {
  if (!typedTextCheckable(recorded.step.target.element, typed)) return 'unknown';
  const a11y = await parts.ctx.devices.desktop.accessibility();
  if (!a11y) return 'unknown';
  const pre = await recorded.pre();
  const expected = recordedField(recorded, typed)?.after ?? null;
  let verdict: TypedVerdict = { kind: 'unknown' };
  const failure = await parts.verifier.verify({
    turn,
    description: `type ${JSON.stringify(typed)}`,
    look: async () => {
      verdict = checkTypedText(await a11y.focused().catch(() => null), typed, expected);
      if (verdict.kind !== 'differs') return located(identity, state.layout ?? RECORDED, 1, '');
      const wanted = expected === null ? 'the typed text' : JSON.stringify(expected);
      const reason = `after ${describeStep(recorded.step)}, the focused ${describeElement(verdict.element)} holds ${JSON.stringify(verdict.element.text)}, not ${wanted}`;
      const { failure } = failed(recorded.step.i, 'after_step', reason, 0, 1, null, pre);
      return { ok: false, failure: { ...failure, read: 'app' } };
    },
    verdict: () =>
      verdict.kind === 'holds'
        ? {
            step_i: recorded.step.i,
            check: 'after_step',
            similarity: 1,
            threshold: 1,
            region: null,
            read: 'app',
          }
        : null,
  });
  if (failure !== null) return failure;
  return (verdict as TypedVerdict).kind === 'unknown' ? 'unknown' : null;
}
