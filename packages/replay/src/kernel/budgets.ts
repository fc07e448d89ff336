import { BudgetExhaustedError, type BudgetName, ReplayOptionError } from '../errors.ts';
import { withDefaults } from './with-defaults.ts';

export type { BudgetName } from '../errors.ts';

/** Limits of one run. */
export interface BudgetLimits {
  /** Model decisions a subtask may take; when spent, the rest is replanned, or the run stops. Default 15. */
  iterations?: number;
  /**
   * Model requests in the whole run: every request counts (each repair of an unusable reply, a
   * value's separate read and a replan too). 0 forbids the model: the run never calls one (agent
   * mode is refused; auto stops where it would hand a subtask over, naming the divergence). Default 60.
   */
  modelCalls?: number;
  /** Replans in the whole run. Default 2. */
  replans?: number;
  /** Wall time of the whole run, ms. Default 600000 (10 minutes). */
  wallTimeMs?: number;
}

export const DEFAULT_BUDGETS: Readonly<Required<BudgetLimits>> = {
  iterations: 15,
  modelCalls: 60,
  replans: 2,
  wallTimeMs: 600_000,
};

/** Used and limit of each budget, as written to summary.json (`wall_time` in ms). */
export type BudgetSnapshot = Record<BudgetName, { used: number; limit: number }>;

/**
 * Counts what a run spends. The `charge*` methods throw {@link BudgetExhaustedError} instead of
 * going over a limit; `iterations` counts per subtask (the snapshot reports the most any subtask took).
 */
export class BudgetTracker {
  readonly limits: Readonly<Required<BudgetLimits>>;
  readonly #now: () => number;
  readonly #startedAt: number;
  #iterations = 0;
  #mostIterations = 0;
  #modelCalls = 0;
  #replans = 0;

  /** `now` is the clock in ms (default `performance.now`). */
  constructor(limits: BudgetLimits = {}, now: () => number = () => performance.now()) {
    this.limits = resolveBudgets(limits);
    this.#now = now;
    this.#startedAt = now();
  }

  /** Starts counting the iterations of a new subtask. */
  startSubtask(): void {
    this.#iterations = 0;
  }

  /** Iterations the current subtask may still take. */
  get iterationsLeft(): number {
    return this.limits.iterations - this.#iterations;
  }

  get replansLeft(): number {
    return this.limits.replans - this.#replans;
  }

  get elapsedMs(): number {
    return this.#now() - this.#startedAt;
  }

  /** Wall time left, ms (0 when spent). */
  get remainingMs(): number {
    return Math.max(0, this.limits.wallTimeMs - this.elapsedMs);
  }

  chargeIteration(subtaskLabel: string): void {
    if (this.#iterations >= this.limits.iterations) throw this.exhausted('iterations', subtaskLabel);
    this.#iterations += 1;
    this.#mostIterations = Math.max(this.#mostIterations, this.#iterations);
  }

  /** Model requests the run may still make. */
  get modelRequestsLeft(): number {
    return this.limits.modelCalls - this.#modelCalls;
  }

  /** Throws when no model request is left; call before a call to the model. */
  checkModelRequest(): void {
    if (this.modelRequestsLeft <= 0) throw this.exhausted('model_calls');
  }

  /** Counts the requests a model call made (its repairs and HTTP retries included). */
  chargeModelRequests(count: number): void {
    this.#modelCalls += count;
  }

  chargeReplan(): void {
    if (this.#replans >= this.limits.replans) throw this.exhausted('replans');
    this.#replans += 1;
  }

  checkWallTime(): void {
    if (this.remainingMs <= 0) throw this.exhausted('wall_time');
  }

  /** The error for a budget that is spent; `subtaskLabel` names the subtask for `iterations`. */
  exhausted(budget: BudgetName, subtaskLabel = 'the subtask'): BudgetExhaustedError {
    const { used, limit } = this.snapshot()[budget];
    const what: Record<BudgetName, string> = {
      iterations: `${subtaskLabel} used all its iterations without finishing`,
      model_calls: 'the run used all its model requests',
      replans: 'the run needed another replan but used all its replans',
      wall_time: 'the run took longer than its wall-time budget',
    };
    const counted = budget === 'iterations' ? this.#iterations : used;
    return new BudgetExhaustedError(budget, Math.round(counted), limit, what[budget]);
  }

  snapshot(): BudgetSnapshot {
    return {
      iterations: { used: this.#mostIterations, limit: this.limits.iterations },
      model_calls: { used: this.#modelCalls, limit: this.limits.modelCalls },
      replans: { used: this.#replans, limit: this.limits.replans },
      wall_time: { used: Math.round(this.elapsedMs), limit: this.limits.wallTimeMs },
    };
  }
}

/** Budgets that may be 0: no replan, no model call. */
const MAY_BE_ZERO: ReadonlySet<string> = new Set(['replans', 'modelCalls']);

/** Limits with defaults filled in; throws {@link ReplayOptionError} for a limit below 1 (replans and model calls may be 0). */
export function resolveBudgets(limits: BudgetLimits): Required<BudgetLimits> {
  const resolved = withDefaults(DEFAULT_BUDGETS, limits);
  for (const [name, value] of Object.entries(resolved)) {
    const floor = MAY_BE_ZERO.has(name) ? 0 : 1;
    if (!Number.isFinite(value) || value < floor) {
      throw new ReplayOptionError(`budget ${name} must be a number >= ${floor}, got ${value}`);
    }
  }
  return resolved;
}
