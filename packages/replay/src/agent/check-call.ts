import { IDENTIFIER, type Problem } from '@mime-desktop/schema';
import type { ResolvedAction } from '../actions/computer-action.ts';
import type { RequiredExtract } from '../kernel/plan.ts';
import type { AgentCall } from './agent-tools.ts';
import { resolveComputerAction } from './computer-call.ts';
import type { PointSpace } from './coordinates.ts';

export interface CallCheckContext {
  /** Where the model's points live. */
  space: PointSpace;
  /** Values the current subtask must extract. */
  requiredExtracts: readonly RequiredExtract[];
  /** Variables extracted so far in the run. */
  extracted: ReadonlySet<string>;
}

/** A call that passed the checks; `action` is set for `computer_use`. */
export type CheckedCall = { ok: true; action: ResolvedAction | null } | { ok: false; problems: Problem[] };

/**
 * The checks a schema cannot express: the fields an action needs, a readable key chord, an extract
 * named as the subtask asks, no `done` before the subtask's values are extracted.
 */
export function checkAgentCall(call: AgentCall, context: CallCheckContext): CheckedCall {
  switch (call.name) {
    case 'computer_use': {
      const resolved = resolveComputerAction(call.args, context.space);
      return resolved.ok ? { ok: true, action: resolved.action } : resolved;
    }
    case 'extract':
      // A value left out is read in a look of its own (as ai_mime does); one given must not be empty.
      return verdict(checkExtract(call.args.variable_name, call.args.value, context));
    case 'done': {
      const missing = context.requiredExtracts.filter((e) => !context.extracted.has(e.variable));
      return verdict(
        missing.map((e) => ({
          path: '',
          message: `the subtask is not done: extract ${e.variable} first (${e.query}) with the extract tool`,
        })),
      );
    }
    case 'replan':
      return verdict(
        call.args.reason.trim() === '' ? [{ path: 'reason', message: 'say why a new plan is needed' }] : [],
      );
  }
}

function checkExtract(variable: string, value: string | null, context: CallCheckContext): Problem[] {
  const problems: Problem[] = [];
  if (!IDENTIFIER.test(variable)) {
    problems.push({
      path: 'variable_name',
      message: `"${variable}" is not a name: use letters, digits and _`,
    });
  }
  const expected = context.requiredExtracts.map((e) => e.variable);
  if (expected.length > 0 && !expected.includes(variable)) {
    problems.push({
      path: 'variable_name',
      message: `this subtask extracts ${expected.join(', ')}; name the value accordingly`,
    });
  }
  if (value !== null && value.trim() === '') {
    problems.push({ path: 'value', message: 'empty; give the value exactly as the screenshot shows it' });
  }
  return problems;
}

function verdict(problems: Problem[]): CheckedCall {
  return problems.length === 0 ? { ok: true, action: null } : { ok: false, problems };
}
