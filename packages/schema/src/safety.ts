/**
 * A workflow's safety facts (ai_mime's marketplace items carry the same: `requires_login`,
 * `side_effects`, `stops_before_payment`, `safety_notes`): what a person or an agent should know before
 * a run, shown by `mime list`, `mime replay`, `mime install` and passed to agents.
 */
import type { Workflow } from './workflow.ts';

/** The facts a workflow states; null or empty where it says nothing. */
export interface SafetyFacts {
  requires_login: boolean | null;
  side_effects: string[];
  stops_before_payment: boolean | null;
  safety_notes: string[];
}

export function safetyFactsOf(workflow: Workflow): SafetyFacts {
  return {
    requires_login: workflow.requires_login ?? null,
    side_effects: workflow.side_effects ?? [],
    stops_before_payment: workflow.stops_before_payment ?? null,
    safety_notes: workflow.safety_notes ?? [],
  };
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
