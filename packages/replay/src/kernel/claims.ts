/**
 * The model's word checked like a step: what a subtask's `done` or an extract claims must be what the
 * live app shows. The agent checks its claims (agent/model-claims.ts); a subtask auto hands over also
 * carries the checks its recording makes possible (recorded/claimed.ts).
 */

/** How a claim of the model stood against the live app. */
export type ClaimVerdict =
  | { verdict: 'verified' | 'refused'; read: 'app' | 'ocr'; detail: string }
  | { verdict: 'unverified'; read: null; detail: string };

/**
 * The checks a recording gives a subtask handed to the model: where it shows the subtask's outcome
 * and where each value it extracts stood. Each resolves null when the recording cannot tell.
 */
export interface RecordedClaims {
  outcome(): Promise<ClaimVerdict | null>;
  extract(variable: string, value: string): Promise<ClaimVerdict | null>;
}
