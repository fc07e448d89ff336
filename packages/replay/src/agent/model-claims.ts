/**
 * The model's word checked like a step (issue 40): a subtask the model says is done, and a value it
 * says it read, count only once the live app shows them.
 * - `done`: the success criteria of the Pass C steps the subtask ends (actions/criteria-check.ts)
 *   must hold: a text one names and the app does not show refuses it. Then, where the recording
 *   shows the subtask's outcome (a hand-over from auto), that check decides; else each param value the subtask's expected outcome names must be shown where it was
 *   not when the subtask started (a value the screen showed already proves nothing): in the focused
 *   field (the accessibility tree), else somewhere new on the screen (OCR). With neither, the subtask
 *   is done by the model's word alone (or by its criteria's texts): `unverified`, never verified.
 * - `extract`: where the recording shows the value (after its label), the screen must show this
 *   value there; else the value must be in the focused field (the accessibility tree) or on the
 *   screen (OCR).
 * A refused claim is told to the model; the turn does not count.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import { type Box, changedRegion, findPhrase, type OcrWord } from '@mime-desktop/vision';
import { checkCriteria } from '../actions/criteria-check.ts';
import { liveImage, readCrop } from '../actions/screen-text.ts';
import type { ClaimVerdict, RecordedClaims } from '../kernel/claims.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { RunContext } from '../kernel/run-context.ts';

/** A param value a subtask's expected outcome names. */
interface NamedValue {
  name: string;
  value: string;
}

/** The part of a subtask's text after "Expected outcome:", or "" when it has none. */
export function expectedOutcome(text: string): string {
  return /expected outcome:\s*([\s\S]*)$/i.exec(text)?.[1]?.trim() ?? '';
}

/** The non-sensitive param values the expected outcome of `text` names (case ignored). */
export function valuesNamed(
  text: string,
  params: readonly { name: string; display: string; sensitive: boolean }[],
): NamedValue[] {
  const outcome = expectedOutcome(text).toLowerCase();
  return params.flatMap((p) => {
    const value = p.display.trim();
    return !p.sensitive && value.length > 0 && outcome.includes(value.toLowerCase())
      ? [{ name: p.name, value }]
      : [];
  });
}

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Whether each value is shown somewhere it was not at the start (`before`: the words then); the
 * first value that is not, or null when all are.
 */
export function notNewlyShown(
  values: readonly NamedValue[],
  before: readonly OcrWord[],
  now: readonly OcrWord[],
): NamedValue | null {
  for (const value of values) {
    const earlier = findPhrase(before, value.value);
    if (!findPhrase(now, value.value).some((box) => !earlier.some((old) => overlaps(old, box)))) return value;
  }
  return null;
}

/** Whether the words hold `value`: as a phrase on one line, or each of its words somewhere. */
export function wordsHold(words: readonly OcrWord[], value: string): boolean {
  if (findPhrase(words, value).length > 0) return true;
  const parts = value.split(/\s+/).filter((part) => /[\p{L}\p{N}]/u.test(part));
  return parts.length > 1 && parts.every((part) => findPhrase(words, part).length > 0);
}

/** The checks of the model's claims in one subtask. */
export class ModelClaims {
  readonly #ctx: RunContext;
  readonly #recorded: RecordedClaims | null;
  readonly #subtask: PlannedSubtask;
  readonly #values: NamedValue[];
  /** Whether the subtask has anything to check: a value its outcome names, or one to extract. */
  readonly #checkable: boolean;
  /** The screen when the subtask started, read when a `done` is checked (never when none comes). */
  #start: RawFrame | null = null;
  /** The focused field's text when the subtask started. */
  #focusedBefore: Promise<string | null> = Promise.resolve(null);

  constructor(ctx: RunContext, subtask: PlannedSubtask, recorded: RecordedClaims | null) {
    this.#ctx = ctx;
    this.#recorded = recorded;
    this.#subtask = subtask;
    this.#values = valuesNamed(subtask.text, ctx.params);
    this.#checkable = this.#values.length > 0 || subtask.extracts.length > 0;
  }

  /** The subtask's first frame: what was shown before the model acted. */
  begin(frame: RawFrame): void {
    if (!this.#checkable || this.#start || this.#ctx.settings.dryRun) return;
    this.#start = frame;
    this.#focusedBefore = this.#focusedText();
  }

  /** Two frames as images, and the full-width band of lines where they differ (null: nowhere). */
  async #changedLines(first: RawFrame, last: RawFrame) {
    const [start, live] = await Promise.all([liveImage(first), liveImage(last)]);
    const changed = changedRegion(start, live);
    return { start, live, lines: changed && { ...changed, x: 0, width: live.width } };
  }

  /** The focused field's text (null without a tree, a field or its text, or after 500 ms). */
  async #focusedText(): Promise<string | null> {
    const a11y = await this.#ctx.devices.desktop.accessibility().catch(() => null);
    if (!a11y) return null;
    const focused = await Promise.race([
      a11y.focused().catch(() => null),
      new Promise<null>((resolve) => setTimeout(resolve, 500, null).unref()),
    ]);
    return focused?.text ?? null;
  }

  /** The model says the subtask is done on `frame`, the screen it saw. */
  async done(frame: RawFrame): Promise<ClaimVerdict> {
    if (this.#ctx.settings.dryRun) return unverified('a dry run executes nothing to check');
    const { desktop, ocr } = this.#ctx.devices;
    const criteria = await checkCriteria(this.#subtask.criteria ?? [], desktop, ocr, await liveImage(frame));
    if (criteria?.verdict === 'refused') return criteria;
    const outcome = await this.#outcome(frame);
    if (!criteria || outcome.verdict === 'refused') return outcome;
    if (outcome.verdict === 'unverified') return criteria;
    return { ...outcome, detail: `${outcome.detail}; ${criteria.detail}` };
  }

  /** The subtask's outcome as the recording or its expected outcome shows it. */
  async #outcome(frame: RawFrame): Promise<ClaimVerdict> {
    const recorded = await this.#recorded?.outcome();
    if (recorded) return recorded;
    if (this.#values.length === 0 || !this.#start) {
      return unverified('neither the recording nor the expected outcome names a value the app should show');
    }
    const names = this.#values.map((v) => `${v.name} = ${JSON.stringify(v.value)}`).join(', ');
    const [fieldBefore, field] = await Promise.all([this.#focusedBefore, this.#focusedText()]);
    const inField = (text: string | null, value: NamedValue) =>
      text?.toLowerCase().includes(value.value.toLowerCase()) ?? false;
    const rest = this.#values.filter((v) => !inField(field, v) || inField(fieldBefore, v));
    if (rest.length === 0) {
      return { verdict: 'verified', read: 'app', detail: `the focused field now holds ${names}` };
    }
    // A value shown where it was not changed the pixels there: only the lines that changed are read.
    const { start, live, lines } = await this.#changedLines(this.#start, frame);
    const [before, now] = lines
      ? [
          await readCrop(this.#ctx.devices.ocr, start, lines),
          await readCrop(this.#ctx.devices.ocr, live, lines),
        ]
      : [[], []];
    const missing = notNewlyShown(rest, before, now);
    return missing
      ? {
          verdict: 'refused',
          read: 'ocr',
          detail: `the expected outcome names ${missing.name} = ${JSON.stringify(missing.value)}, and the screen shows it nowhere it did not already show it when this subtask started`,
        }
      : { verdict: 'verified', read: 'ocr', detail: `the screen shows ${names} where it did not before` };
  }

  /** The model says it read `value` for `variable` on `frame`, the screen it saw. */
  async extract(variable: string, value: string, frame: RawFrame): Promise<ClaimVerdict> {
    if (this.#ctx.settings.dryRun) return unverified('a dry run reads nothing');
    const recorded = await this.#recorded?.extract(variable, value);
    if (recorded) return recorded;
    if ((await this.#focusedText())?.toLowerCase().includes(value.toLowerCase())) {
      return { verdict: 'verified', read: 'app', detail: 'the focused field holds it' };
    }
    // Read first across the lines that changed since the subtask started (a value read is mostly one
    // the subtask made appear), then across the whole screen.
    const { live, lines } = await this.#changedLines(this.#start ?? frame, frame);
    const whole = { x: 0, y: 0, width: live.width, height: live.height };
    const near = lines !== null && wordsHold(await readCrop(this.#ctx.devices.ocr, live, lines), value);
    return near || wordsHold(await readCrop(this.#ctx.devices.ocr, live, whole), value)
      ? { verdict: 'verified', read: 'ocr', detail: 'the screen shows it' }
      : {
          verdict: 'refused',
          read: 'ocr',
          detail: `the screen does not show ${JSON.stringify(value)}: give the value exactly as the screen shows it`,
        };
  }
}

const unverified = (detail: string): ClaimVerdict => ({ verdict: 'unverified', read: null, detail });
