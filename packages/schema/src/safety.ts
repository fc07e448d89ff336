/**
 * A workflow's safety facts (ai_mime's marketplace items carry the same: `requires_login`,
 * `side_effects`, `stops_before_payment`, `safety_notes`): what a person or an agent should know before
 * a run, shown by `mime list`, `mime replay`, `mime install` and passed to agents.
 */
import type { Workflow } from './workflow.ts';

/** The facts a workflow states; null where it says nothing (unknown: never "no side effects"). */
export interface SafetyFacts {
  requires_login: boolean | null;
  /** What a run changes; [] when the workflow says it changes nothing, null when it does not say. */
  side_effects: string[] | null;
  stops_before_payment: boolean | null;
  safety_notes: string[];
  /** The facts it leaves unknown. */
  unknown: SafetyFact[];
}

export function safetyFactsOf(workflow: Workflow): SafetyFacts {
  return {
    requires_login: workflow.requires_login ?? null,
    side_effects: workflow.side_effects ?? null,
    stops_before_payment: workflow.stops_before_payment ?? null,
    safety_notes: workflow.safety_notes ?? [],
    unknown: unknownSafetyFacts(workflow),
  };
}

/** The facts a workflow states or leaves unknown (its `safety_notes` are notes, not a fact). */
export type SafetyFact = 'requires_login' | 'side_effects' | 'stops_before_payment';

/**
 * The facts a workflow leaves unknown (unset): a reflect without a model, or a model that could not
 * tell from the steps, never guesses them (no side effects is a claim, not a default).
 */
export function unknownSafetyFacts(workflow: Workflow): SafetyFact[] {
  const facts: SafetyFact[] = [];
  if (workflow.requires_login === undefined) facts.push('requires_login');
  if (workflow.side_effects === undefined) facts.push('side_effects');
  if (workflow.stops_before_payment === undefined) facts.push('stops_before_payment');
  return facts;
}

/** The facts as short sentences, only those stated (none when the workflow states none). */
export function describeSafety(workflow: Workflow): string[] {
  const lines: string[] = [];
  if (workflow.requires_login === true) lines.push('Needs you to be logged in already.');
  if (workflow.requires_login === false) lines.push('Needs no login.');
  if (workflow.side_effects?.length === 0) lines.push('Side effects: none.');
  for (const effect of workflow.side_effects ?? []) lines.push(`Side effect: ${effect}`);
  if (workflow.stops_before_payment === true) lines.push('Stops before payment.');
  if (workflow.stops_before_payment === false) lines.push('Does NOT stop before payment.');
  for (const note of workflow.safety_notes ?? []) lines.push(`Note: ${note}`);
  return lines;
}

/**
 * MCP tool annotations from the facts: read-only only when the workflow says it has no side effects
 * (`side_effects: []`); otherwise a replay may change things (destructive, the safe default). It always
 * reaches beyond this server (a real desktop and the apps on it), so open-world.
 */
export function toolAnnotationsOf(workflow: Workflow): {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
} {
  const readOnly = workflow.side_effects !== undefined && workflow.side_effects.length === 0;
  return { readOnlyHint: readOnly, destructiveHint: !readOnly, openWorldHint: true };
}
