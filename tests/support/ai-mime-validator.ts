/**
 * ai_mime's own check of a workflow file, re-expressed in TypeScript for tests: the rules of
 * `validate_schema` in src/ai_mime/reflect/schema_utils.py of prakhar1114/ai_mime at commit
 * c1a50bab7bae3feb3193f183ae69e0018d29152f (MIT licence, copyright 2026 Prakhar Jain), one for one,
 * with its messages. A test saves an ai_mime file with mime and runs this on the result: a file that
 * ai_mime would refuse after a save by mime is a file mime broke.
 */
import { join } from 'node:path';

type Loose = Record<string, unknown>;
const isRecord = (v: unknown): v is Loose => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v)).trim();

const ACTION_TYPES = new Set([
  'CLICK',
  'DOUBLE_CLICK',
  'RIGHT_CLICK',
  'MIDDLE_CLICK',
  'TYPE',
  'SCROLL',
  'KEYPRESS',
  'DRAG',
  'EXTRACT',
]);
const EXTRACT_NAME = /^extract_[0-9]+$/;
const EXTRACT_REF = /\{(extract_[0-9]+)\}/g;

const refsIn = (v: unknown): string[] =>
  typeof v === 'string' ? Array.from(v.matchAll(EXTRACT_REF), (m) => m[1] as string) : [];

/** Extract variables by the subtask that produces them. */
function producers(subtasks: unknown[]): Map<string, number> {
  const producedIn = new Map<string, number>();
  for (const [si, st] of subtasks.entries()) {
    for (const step of (isRecord(st) && Array.isArray(st.steps) ? st.steps : []) as Loose[]) {
      const vn = step.variable_name;
      if (step.action_type === 'EXTRACT' && typeof vn === 'string' && EXTRACT_NAME.test(vn))
        producedIn.set(vn, si);
    }
  }
  return producedIn;
}

/** `{extract_N}` references of a subtask are declared and produced upstream; so are its extract dependencies. */
function dependencyError(
  si: number,
  st: Loose,
  deps: unknown[],
  producedIn: Map<string, number>,
): string | null {
  const steps = st.steps as Loose[];
  const refs = new Set([...refsIn(st.text), ...steps.flatMap((s) => refsIn(s.action_value))]);
  for (const r of [...refs].sort()) {
    if (!deps.includes(r)) return `subtask ${si}: references {${r}} but dependencies is missing '${r}'`;
    const at = producedIn.get(r);
    if (at === undefined)
      return `subtask ${si}: dependency '${r}' is not produced by any EXTRACT step upstream`;
    if (at >= si)
      return `subtask ${si}: dependency '${r}' must come from an earlier subtask (found at subtask ${at})`;
  }
  for (const dep of deps) {
    if (typeof dep !== 'string' || !EXTRACT_NAME.test(dep)) continue;
    const at = producedIn.get(dep);
    if (at === undefined) return `subtask ${si}: dependency '${dep}' is not produced by any EXTRACT step`;
    if (at >= si)
      return `subtask ${si}: dependency '${dep}' must come from an earlier subtask (found at subtask ${at})`;
  }
  return null;
}

/** The value rules by action type. */
function valueError(where: string, step: Loose, at: string): string | null {
  const av = step.action_value;
  const vn = step.variable_name;
  const aa: Loose = isRecord(step.additional_args) ? { ...step.additional_args } : {};
  // Its backward compatibility: a top-level extract_query counts as additional_args.extract_query.
  if (typeof step.extract_query === 'string' && step.extract_query.trim() && !('extract_query' in aa))
    aa.extract_query = step.extract_query;
  if (at === 'TYPE' || at === 'KEYPRESS')
    return av !== null && av !== undefined && typeof av !== 'string'
      ? `${where}: ${at} action_value must be a string or null`
      : null;
  if (at === 'EXTRACT') {
    if (typeof vn !== 'string' || !EXTRACT_NAME.test(vn))
      return `${where}: EXTRACT requires variable_name like extract_0`;
    if (av !== vn) return `${where}: EXTRACT requires action_value == variable_name`;
    if (typeof aa.extract_query !== 'string' || !aa.extract_query.trim())
      return `${where}: EXTRACT requires non-empty additional_args.extract_query`;
    return null;
  }
  if (av !== null && av !== undefined) return `${where}: action_value must be null for ${at}`;
  if ('extract_query' in aa) return `${where}: additional_args.extract_query must not be set for ${at}`;
  if (vn !== null && vn !== undefined) return `${where}: variable_name must be null for ${at}`;
  return null;
}

function stepError(where: string, step: Loose, li: number): string | null {
  if (step.i !== li) return `${where}: i must equal its index within the subtask`;
  const at = step.action_type;
  if (typeof at !== 'string' || !ACTION_TYPES.has(at))
    return `${where}: invalid action_type=${JSON.stringify(at)}`;
  const value = valueError(where, step, at);
  if (value) return value;
  if (!text(step.intent)) return `${where}: missing intent`;
  if (!text(step.expected_current_state)) return `${where}: missing expected_current_state`;
  if (!isRecord(step.target) || !text(step.target.primary)) return `${where}: target.primary required`;
  if (!Array.isArray(step.post_action) || step.post_action.length === 0)
    return `${where}: post_action must be non-empty list[str]`;
  return null;
}

/** The first problem ai_mime's `validate_schema` raises for `schema`, or null when it accepts it. */
export function aiMimeValidationError(schema: unknown): string | null {
  const plan = isRecord(schema) ? schema.plan : undefined;
  const subtasks = isRecord(plan) ? plan.subtasks : undefined;
  if (!Array.isArray(subtasks)) return 'schema missing required plan/subtasks structure';
  const producedIn = producers(subtasks);
  for (const [si, st] of subtasks.entries()) {
    if (!isRecord(st) || st.subtask_i !== si) return `subtask ${si}: subtask_i must equal its list index`;
    if (!text(st.text)) return `subtask ${si}: missing non-empty text`;
    const deps = st.dependencies ?? [];
    if (!Array.isArray(deps)) return `subtask ${si}: dependencies must be a list[str]`;
    if (!Array.isArray(st.steps)) return `subtask ${si}: steps must be a list`;
    const problem =
      dependencyError(si, st, deps, producedIn) ??
      (st.steps as Loose[]).reduce<string | null>(
        (found, step, li) => found ?? stepError(`subtask ${si} step ${li}`, step, li),
        null,
      );
    if (problem) return problem;
  }
  return null;
}

/** The look-alike marketplace workflows in fixtures/ai-mime-marketplace (see its README). */
export const AI_MIME_MARKETPLACE = join(import.meta.dirname, '..', '..', 'fixtures', 'ai-mime-marketplace');
export const AI_MIME_WORKFLOWS = [
  'find-places-and-message',
  'order-food-for-delivery',
  'play-song-in-music-app',
  'play-video-on-video-site',
  'record-expense-in-sheet',
  'upload-to-drive-folder',
] as const;
