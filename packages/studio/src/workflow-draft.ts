/**
 * The draft a page edits: any workflow whose shape parses, whatever its cross-field problems (a
 * template of no param, a dependency out of order). An edit always goes into the draft; the problems
 * come back with it, for the page to list and to fix, and only a save refuses them.
 */
import { checkWorkflow, type Problem, type Workflow, type WorkflowContext } from '@mime-desktop/schema';
import { applyEdit, type WorkflowEdit } from './workflow-edits.ts';
import { WorkflowInvalidError } from './workflow-store.ts';

/** A draft and what is wrong with it now (empty when it would save). */
export interface CheckedDraft {
  workflow: Workflow;
  problems: Problem[];
}

/** The draft the page sent, checked; a document that is no workflow at all is refused. */
export function checkDraft(document: unknown, context: WorkflowContext = {}): CheckedDraft {
  const checked = checkWorkflow(document, context);
  if (checked.ok) return { workflow: checked.workflow, problems: [] };
  if (checked.draft === null) throw new WorkflowInvalidError(checked.problems);
  return { workflow: checked.draft, problems: checked.problems };
}

/** The draft with `edit` applied (`recorded`: the recording's steps, see applyEdit), and its problems after it. */
export function editDraft(
  document: unknown,
  edit: WorkflowEdit,
  context: WorkflowContext = {},
  recorded?: Parameters<typeof applyEdit>[2],
): CheckedDraft {
  const { workflow } = checkDraft(document, context);
  return checkDraft(applyEdit(workflow, edit, recorded), context);
}
