/**
 * One way to verify, used by every check of the step loop (in the shape of Playwright's
 * `_retryAction`): watch the screen until the look passes or the step times out; on a failure, save
 * its evidence, record the divergence and let the mode say what it means; on a pass, journal the
 * verdict.
 */
import type { RunEventData } from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import type { EventLog } from '../kernel/event-log.ts';
import type { At } from '../kernel/run-memory.ts';
import type { Failure, Look } from './checks.ts';
import { recordDivergence } from './divergence.ts';
import type { Layout } from './layout-map.ts';
import type { RecordedMode } from './recorded-mode.ts';
import type { ScreenWatcher, Watched } from './screen-watcher.ts';

/** A passed check as the journal's `verify` event holds it. */
export type Verdict = RunEventData<'verify'>;

export interface Check<T> {
  turn: At;
  look: (live: RgbaImage) => Promise<Look<T>> | Look<T>;
  /** What a failure reports as the action checked, and where the layout put the compared region. */
  description: string;
  layout?: Layout;
  /** The verdict to journal once the look passed; null journals nothing (content could not tell). */
  verdict: (watched: Watched<T>, score: number | null) => Verdict | null;
}

export class Verifier {
  readonly #screen: ScreenWatcher;
  readonly #log: EventLog;
  readonly #mode: RecordedMode;
  /** Whether a failure in this subtask is likely caused by a screen that did not start as recorded. */
  notAtStart: (subtask_i: number) => boolean = () => false;

  constructor(screen: ScreenWatcher, log: EventLog, mode: RecordedMode) {
    this.#screen = screen;
    this.#log = log;
    this.#mode = mode;
  }

  /** Null when the check passed; else why the subtask cannot go on without the model (auto). */
  async verify<T>(check: Check<T>): Promise<string | null> {
    const watched = await this.#screen.watch(check.look);
    if (!watched.look.ok) {
      const { failure } = watched.look;
      return this.fail(
        {
          ...failure,
          description: check.description,
          ...(check.layout ? { layout: check.layout } : {}),
        },
        check.turn,
        watched.live,
      );
    }
    const verdict = check.verdict(watched, watched.look.score);
    if (verdict) this.#log.emit({ type: 'verify', ...check.turn, ...verdict });
    return null;
  }

  /** A failed check: its crops are saved and reported, and the mode says what it means. */
  async fail(failure: Failure, turn: At, live: RgbaImage): Promise<string> {
    const divergence = await recordDivergence(this.#log, failure, turn, live, {
      regroundable: this.#mode.suggestsReground,
      notAtStart: this.notAtStart(turn.subtask_i),
    });
    return this.#mode.diverged(failure.reason, divergence);
  }
}
