/**
 * The check after a typing or key step: typing by content where the accessibility tree can tell (the
 * focused field holds what was typed), else (and for a key) the change the recording shows in the
 * next frame must appear. Nothing to check after a pointer step: the next step's look or the
 * subtask's outcome tells.
 */
import { describeElement, type RunAction } from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import { describeAction } from '../actions/computer-action.ts';
import type { At } from '../kernel/run-memory.ts';
import { verifyChange } from './change-check.ts';
import {
  checkTypedText,
  failed,
  identity,
  located,
  type TypedVerdict,
  typedTextCheckable,
} from './checks.ts';
import { RECORDED } from './layout-map.ts';
import { describeStep, type LoopParts, type SubtaskState } from './loop-parts.ts';
import type { RecordedStep } from './recorded-step.ts';

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
  // Other text than recorded (a new param value) changes the screen in the same place, not the same way.
  const otherText =
    action.action === 'type' && event.action_type === 'type' && action.text !== event.action_details.text;
  return verifyChange(parts, {
    liveBefore,
    byPlace: otherText ? 'always' : 'in-other-colours',
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
 * After typing, by content: the focused field's text (from the accessibility tree) must hold what was
 * typed. 'unknown' when content cannot tell (no tree, a password field, a secret in the text): the
 * layout check decides then.
 */
async function checkTyped(
  parts: LoopParts,
  recorded: RecordedStep,
  turn: At,
  state: SubtaskState,
  typed: string,
): Promise<string | null | 'unknown'> {
  if (!typedTextCheckable(recorded.step.target.element, typed)) return 'unknown';
  const a11y = await parts.ctx.desktop.accessibility();
  if (!a11y) return 'unknown';
  const pre = await recorded.pre();
  let verdict: TypedVerdict = { kind: 'unknown' };
  const failure = await parts.verifier.verify({
    turn,
    description: `type ${JSON.stringify(typed)}`,
    look: async () => {
      verdict = checkTypedText(await a11y.focused().catch(() => null), typed);
      if (verdict.kind !== 'differs') return located(identity, state.layout ?? RECORDED, 1, '');
      const reason = `after ${describeStep(recorded.step)}, the focused ${describeElement(verdict.element)} holds ${JSON.stringify(verdict.element.text)}, not the typed text`;
      return failed(recorded.step.i, 'after_step', reason, 0, 1, null, pre);
    },
    verdict: () =>
      verdict.kind === 'holds'
        ? { step_i: recorded.step.i, check: 'after_step', similarity: 1, threshold: 1, region: null }
        : null,
  });
  if (failure !== null) return failure;
  return (verdict as TypedVerdict).kind === 'unknown' ? 'unknown' : null;
}
