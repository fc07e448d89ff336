/** An executed action and whether the screen changed after it (null until the next capture tells). */
export interface ActionOutcome {
  /** See `actionSignature`: equal signatures are "the same action". */
  signature: string;
  changed: boolean | null;
}

/** True when the last `repeats` actions were the same action, each leaving the screen unchanged. */
export function detectNoProgress(outcomes: readonly ActionOutcome[], repeats: number): boolean {
  if (repeats < 1 || outcomes.length < repeats) return false;
  const last = outcomes.slice(-repeats);
  const signature = last[0]?.signature;
  return last.every((outcome) => outcome.signature === signature && outcome.changed === false);
}
