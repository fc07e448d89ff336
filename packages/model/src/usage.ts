/** Counts of one logical model call (a `structured` or `toolCall`, with its repairs and retries). */
export interface CallUsage {
  /** HTTP attempts, SDK retries included. */
  requests: number;
  /** Repair rounds: the output was unusable and the model was asked again. */
  repairs: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

/** Totals over many calls, as a plain object. */
export interface UsageSnapshot extends CallUsage {
  /** Logical calls, failed ones included. */
  calls: number;
}

/**
 * Adds up the usage of model calls. Share one meter across the clients of a run to get the run's
 * totals; `durationMs` is the sum of the calls' durations (overlapping calls count twice).
 */
export class UsageMeter {
  #totals: UsageSnapshot = {
    calls: 0,
    requests: 0,
    repairs: 0,
    inputTokens: 0,
    outputTokens: 0,
    durationMs: 0,
  };

  /** Adds one finished (or failed) logical call. */
  recordCall(usage: CallUsage): void {
    const t = this.#totals;
    t.calls += 1;
    t.requests += usage.requests;
    t.repairs += usage.repairs;
    t.inputTokens += usage.inputTokens;
    t.outputTokens += usage.outputTokens;
    t.durationMs += usage.durationMs;
  }

  /** A copy of the totals so far. */
  snapshot(): UsageSnapshot {
    return { ...this.#totals };
  }
}
