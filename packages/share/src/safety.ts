import type { Workflow } from '@mime-desktop/schema';
import type { SafetyFacts } from './manifest.ts';

/** The safety facts a workflow states itself (only those it states). */
export function safetyOfWorkflow(workflow: Workflow): Partial<SafetyFacts> {
  const facts: Partial<SafetyFacts> = {};
  if (workflow.requires_login !== undefined) facts.requires_login = workflow.requires_login;
  if (workflow.side_effects !== undefined) facts.side_effects = workflow.side_effects;
  if (workflow.stops_before_payment !== undefined) facts.stops_before_payment = workflow.stops_before_payment;
  if (workflow.safety_notes !== undefined) facts.safety_notes = workflow.safety_notes;
  return facts;
}
