import type { WorkflowStep } from '@mime-desktop/schema';
import { TypedText } from '../kernel/typed-text.ts';

/**
 * A TYPE or KEYPRESS step without a value (`action_value: null`), as ai_mime writes one on purpose:
 * its Pass B returns null when the value is structural or comes from an extract
 * (src/ai_mime/reflect/schema_compiler.py at c1a50ba). Replayed from a recording, such a step types
 * the value of the upstream extract it names (in its intent or target), else what the recording
 * typed; without a recording the model decides it. Each way is said in the run's step reason.
 */
export interface UnsetValue {
  /** The text to type instead of the recorded one (an extract's value, typed as it is), or null to type the recorded one. */
  typed: TypedText | null;
  /** What the run says of it. */
  note: string;
}

const named = (text: string, variable: string) =>
  new RegExp(`(^|[^A-Za-z0-9_])\\{?${variable}\\}?($|[^A-Za-z0-9_])`).test(text);

/**
 * How an unset TYPE or KEYPRESS step is replayed from its recording, given the values extracted so
 * far; null for a step that has its value.
 */
export function unsetValueOf(step: WorkflowStep, extracted: ReadonlyMap<string, string>): UnsetValue | null {
  if (step.action_value !== null) return null;
  if (step.action_type === 'KEYPRESS')
    return { typed: null, note: 'its keys are not in the workflow: pressed what the recording pressed' };
  if (step.action_type !== 'TYPE') return null;
  const words = `${step.intent} ${step.target.primary}`;
  const variable = [...extracted.keys()].find((name) => named(words, name));
  if (variable !== undefined)
    return {
      typed: new TypedText(extracted.get(variable) ?? ''),
      note: `its text is not in the workflow: typed ${variable}, the value extracted earlier that it names`,
    };
  return { typed: null, note: 'its text is not in the workflow: typed what the recording typed' };
}

/**
 * What a hand-over without a recording says of the unset TYPE and KEYPRESS steps among `steps` (the
 * rest of the subtask): the model decides their values. Empty when there are none.
 */
export function unsetWithoutRecording(steps: readonly WorkflowStep[]): string {
  const unset = steps.filter(
    (s) => s.action_value === null && (s.action_type === 'TYPE' || s.action_type === 'KEYPRESS'),
  );
  if (unset.length === 0) return '';
  const which = unset.map((s) => `${s.i} (${s.action_type})`).join(', ');
  return unset.length === 1
    ? `; step ${which} has no value in the workflow either: the model decides it`
    : `; steps ${which} have no value in the workflow either: the model decides them`;
}
