/**
 * What the recording says of the model's claims in a subtask it was handed (auto): the subtask's
 * outcome where the recording shows a param's example (shown-values.ts), and an extracted value
 * where the recording shows the example after its label (extract-reading.ts). The same readers as
 * the checks of the recorded steps.
 */
import { normalizeText } from '@mime-desktop/vision';
import type { ClaimVerdict } from '../kernel/claims.ts';
import type { ShownVerdict } from './shown-values.ts';

/** A subtask outcome's content check as a verdict on the model's `done`; null when the recording cannot tell. */
export function claimedOutcome(shown: ShownVerdict): ClaimVerdict | null {
  switch (shown.kind) {
    case 'unknown':
      return null;
    case 'shown':
      return {
        verdict: 'verified',
        read: shown.read,
        detail: `the screen shows this run's value${shown.checked === 1 ? '' : 's'} where the recording shows the example at the end of the subtask`,
      };
    case 'missing': {
      const { value, read, by } = shown;
      const there =
        by === 'app'
          ? `the app says ${JSON.stringify(read)} there`
          : `that line reads ${JSON.stringify(read)}`;
      return {
        verdict: 'refused',
        read: by,
        detail: `the app does not show ${value.name} = ${JSON.stringify(value.value)} where the recording shows ${JSON.stringify(value.example)} at the end of this subtask (${there})`,
      };
    }
  }
}

/**
 * An extracted value against what the live screen shows after the label the recorded example stood
 * by (`shown`, null when that label is not on the screen: the recording cannot tell).
 */
export function claimedExtract(
  value: string,
  shown: string | null,
  label: string,
  by: 'app' | 'ocr',
): ClaimVerdict | null {
  if (shown === null) return null;
  const [claimed, read] = [normalizeText(value), normalizeText(shown)];
  // OCR may read a word more or less than the model (a trailing mark, a cut line).
  const [shorter, longer] = claimed.length <= read.length ? [claimed, read] : [read, claimed];
  const same =
    shorter === longer ||
    (shorter.length >= 3 && shorter.length >= 0.75 * longer.length && longer.startsWith(shorter));
  const where = `after ${JSON.stringify(label)}, where the recording shows this value`;
  return same && shorter !== ''
    ? { verdict: 'verified', read: by, detail: `the screen shows ${JSON.stringify(shown)} ${where}` }
    : {
        verdict: 'refused',
        read: by,
        detail: `the screen shows ${JSON.stringify(shown)} ${where}, not ${JSON.stringify(value)}`,
      };
}
