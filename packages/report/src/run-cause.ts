/**
 * Why a run did not succeed, cause first: one line naming where it stopped and what differed, then the
 * likely cause and what to do, read from how it ended and the last divergence it met. The report's
 * header and the studio's run panel both say it so.
 */
import { formatStep, formatSubtask, type RunEventData } from '@mime-desktop/schema';

/** The last divergence a run met, where it happened. */
export type RunDivergence = RunEventData<'divergence'> & {
  subtask_i: number | null;
  iteration: number | null;
};

export interface RunCause {
  /** One line: where the run stopped and what differed. */
  headline: string;
  /** The likely cause and what to do about it; null when none is known beyond the headline. */
  cause: string | null;
  /** Whether starting the app fresh (`--fresh`, the studio's option) is the likely fix. */
  fresh: boolean;
  /** The divergence that stopped the run (or led to what did), for its crops and its step. */
  divergence: RunDivergence | null;
}

/** How a divergence error says where and what (replay's ReplayDivergenceError), then its advice. */
const DIVERGENCE_MESSAGE =
  /^(.*?) \((\d+)% where (\d+)% is needed; expected and observed crops: [^)]*\)\. ?(.*)$/s;
/** The first frame did not look as recorded: the app was not at its recorded start. */
const NOT_AT_START = "The screen already differed from the recording's first frame";
/** A typed field held more than what was typed. */
const FIELD_HELD = /holds ("(?:[^"\\]|\\.)*"), not the typed text/;
/** A subtask's outcome check that read the line where a value should be: `= "Numb" ... (that line reads "FaintNumb |")`. */
const LINE_READS =
  /= ("(?:[^"\\]|\\.)*") where the recording shows .*\(that line reads ("(?:[^"\\]|\\.)*")\)/;

/** How replay's reason joins a hand-over's cause and the budget that cut it short. */
const HANDED_OVER = '; the model took over, then ';
const BUDGET_ADVICE =
  'More budget seldom helps: look at the two crops, and if the app is not in the state the recording shows (its window closed, a dialog in front, a value an earlier run left), start from a fresh app.';

const pct = (n: number) => `${Math.round(n * 100)}%`;
const capital = (text: string) => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;

/** Where a divergence was, as people read it: "step 3" or "the end of subtask 2". */
function placeOf(divergence: RunDivergence): string {
  if (divergence.step_i !== null) return formatStep(divergence.step_i);
  return `the end of ${formatSubtask(divergence.subtask_i ?? 0)}`;
}

/** The likely cause a divergence's words point to. */
function likelyCause(reason: string): { cause: string; fresh: boolean } | null {
  const held = FIELD_HELD.exec(reason);
  if (held) {
    return {
      cause: `The field held another value (${held[1]}): text already in it, left by an earlier run, was typed onto. Start from a fresh app, or clear the field first.`,
      fresh: true,
    };
  }
  const read = LINE_READS.exec(reason);
  if (read?.[1] && read[2]?.includes(read[1].slice(1, -1))) {
    return {
      cause: `The field held another value: it reads ${read[2]} where ${read[1]} was to be, so text already in it, left by an earlier run, was typed onto. Start from a fresh app, or clear the field first.`,
      fresh: true,
    };
  }
  if (reason.includes(NOT_AT_START)) {
    return {
      cause:
        'The screen was not at the recorded start (a value an earlier run left, another page or dialog): start from a fresh app, which restarts it from the workflow’s setup.',
      fresh: true,
    };
  }
  return null;
}

/**
 * The cause of run `end`, given the last divergence it met (if any); null for a run that succeeded.
 * A budget or other error after a divergence names the divergence first.
 */
export function runCause(
  end: { outcome: string; code: string | null; reason: string | null },
  divergence: RunDivergence | null,
  /** The app's window, as the workflow's setup names it, when it was gone as the run ended. */
  { windowGone = null }: { windowGone?: string | null } = {},
): RunCause | null {
  if (end.outcome === 'success') return null;
  if (windowGone !== null) {
    return {
      headline: `${divergence ? capital(placeOf(divergence)) : 'The run'} could not go on: the app's window is gone (no window with ${windowGone} is open)`,
      cause:
        'The app was closed, or ended, during the run: what the run saw then was the screen without it. Start from a fresh app, which starts it again from the workflow’s setup.',
      fresh: true,
      divergence,
    };
  }
  const reason = end.reason ?? '';
  const parsed = end.code === 'MIME_REPLAY_DIVERGENCE' ? DIVERGENCE_MESSAGE.exec(reason) : null;
  if (parsed) {
    const [, what = '', seen = '', needed = '', advice = ''] = parsed;
    const likely = likelyCause(reason);
    return {
      headline: `${capital(what)} (${seen}% alike, ${needed}% needed)`,
      cause: likely?.cause ?? (advice.trim() || null),
      fresh: likely?.fresh ?? false,
      divergence,
    };
  }
  const budget = end.code?.startsWith('MIME_BUDGET_') ?? false;
  // A hand-over a budget cut short: replay's reason names the divergence first, then the budget.
  const handOver = budget ? reason.indexOf(HANDED_OVER) : -1;
  if (handOver > 0) {
    return {
      headline: capital(reason.slice(0, handOver)),
      cause: `The model took over there, then ${reason.slice(handOver + HANDED_OVER.length).replace(/\.$/, '')}. ${BUDGET_ADVICE}`,
      fresh: true,
      divergence,
    };
  }
  if (divergence && budget) {
    return {
      headline: `${capital(placeOf(divergence))} did not look as recorded (${pct(divergence.similarity)} alike, ${pct(divergence.threshold)} needed), and then ${firstSentence(reason)}`,
      cause: `The budget ran out working around that difference. ${BUDGET_ADVICE}`,
      fresh: true,
      divergence,
    };
  }
  const first = firstSentence(reason);
  const rest = reason.slice(first.length).replace(/^[.:;]?\s*/, '');
  return {
    headline: capital(first || (end.code ?? end.outcome)),
    cause: rest || null,
    fresh: false,
    divergence,
  };
}

/** The first sentence of `text` (to its first ". " or its end). */
function firstSentence(text: string): string {
  const end = text.search(/\.\s/);
  return (end === -1 ? text : text.slice(0, end)).replace(/\.$/, '');
}
