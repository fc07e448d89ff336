/**
 * The check of a Pass C step's success criteria (kernel/criteria.ts) on the live app, once the
 * subtask the step ends with is done, by either executor (the step loop's outcome check, the
 * agent's `done`): each text a criterion names must be shown. The app first: the focused element's
 * text (its accessibility tree); then OCR of the whole screen, tolerant of OCR's confusions. Such a
 * criterion says what the app shows, not where (ai_mime's plan carries no place), so a text the
 * screen shows anywhere counts. A criterion in free prose is checked by nothing: the result says so.
 */
import type { Desktop } from '@mime-desktop/os-io';
import { lineShows, normalizeText, type OcrEngine, ocrLines, type RgbaImage } from '@mime-desktop/vision';
import type { ClaimVerdict } from '../kernel/claims.ts';
import { type CriterionCheck, describeTexts, type ExpectedText } from '../kernel/criteria.ts';
import { readCrop } from './screen-text.ts';

/** The focused element's text, or null (no tree, no focus, no text, or no answer within 500 ms). */
async function focusedText(desktop: Desktop): Promise<string | null> {
  const a11y = await desktop.accessibility().catch(() => null);
  if (!a11y) return null;
  const focused = await Promise.race([
    a11y.focused().catch(() => null),
    new Promise<null>((resolve) => setTimeout(resolve, 500, null).unref()),
  ]);
  return focused?.text ?? null;
}

/**
 * The live app against the criteria: `refused` naming the first text it does not show; `verified`
 * when every checkable text is shown; `unverified` when no criterion names one (free prose); null
 * when there are no criteria.
 */
export async function checkCriteria(
  criteria: readonly CriterionCheck[],
  desktop: Desktop,
  ocr: OcrEngine,
  live: RgbaImage,
): Promise<ClaimVerdict | null> {
  if (criteria.length === 0) return null;
  const texts = criteria.flatMap((c) => c.texts);
  const prose = criteria.filter((c) => c.texts.length === 0).map((c) => JSON.stringify(c.criterion));
  const note =
    prose.length > 0
      ? `the success criteri${prose.length === 1 ? 'on' : 'a'} ${prose.join(', ')} name${prose.length === 1 ? 's' : ''} nothing the app shows: told to the model, not checked`
      : '';
  const unchecked = note && `; ${note}`;
  if (texts.length === 0) return { verdict: 'unverified', read: null, detail: note };
  const field = await focusedText(desktop);
  const inField = (t: ExpectedText) => field !== null && normalizeText(field).includes(normalizeText(t.text));
  const rest = texts.filter((t) => !inField(t));
  if (rest.length === 0) {
    return {
      verdict: 'verified',
      read: 'app',
      detail: `the focused field shows ${describeTexts(texts)}, as the success criteria say${unchecked}`,
    };
  }
  const lines = ocrLines(await readCrop(ocr, live, { x: 0, y: 0, width: live.width, height: live.height }));
  const missing = rest.find((t) => !lines.some((line) => lineShows(line.text, t.text)));
  if (missing) {
    const criterion = criteria.find((c) => c.texts.includes(missing));
    return {
      verdict: 'refused',
      read: 'ocr',
      detail: `the app does not show ${describeTexts([missing])}, which the success criterion ${JSON.stringify(criterion?.criterion ?? '')} names`,
    };
  }
  return {
    verdict: 'verified',
    read: rest.length === texts.length ? 'ocr' : 'app',
    detail: `the app shows ${describeTexts(texts)}, as the success criteria say${unchecked}`,
  };
}
