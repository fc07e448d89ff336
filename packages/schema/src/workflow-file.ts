import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileReadError, type Problem, ValidationError } from './errors.ts';
import { settleFolder } from './folder-lock.ts';
import { parseJsonText, readTextFileWithDigest, writeFileAtomically, writeJsonAtomic } from './json-files.ts';
import { workflowJsonSchema } from './json-schema.ts';
import { applyOptimizedPlan, type OptimizedPlan, readOptimizedPlan } from './optimized-plan.ts';
import { Workflow, type Workflow as WorkflowType } from './workflow.ts';
import { toAiMimeDocument } from './workflow-ai-mime.ts';
import { checkWorkflowRules, type WorkflowContext } from './workflow-rules.ts';
import { upgradeWorkflowDocument, type WorkflowLayout } from './workflow-upgrade.ts';
import { sortProblems, zodProblems } from './zod-problems.ts';

export const WORKFLOW_FILE = 'schema.json';
export const WORKFLOW_JSON_SCHEMA_FILE = 'workflow.schema.json';

/**
 * A checked workflow; `warnings` say what reading an older layout changed (a stored secret ignored).
 * When only cross-field rules fail (a template of no param, a dependency out of order), `draft` is the
 * document as parsed, still a workflow to edit further; it is null when the shape itself is wrong.
 */
export type WorkflowCheck =
  | { ok: true; workflow: WorkflowType; from: WorkflowLayout; warnings: Problem[] }
  | { ok: false; problems: Problem[]; from: WorkflowLayout; warnings: Problem[]; draft: WorkflowType | null };

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates a parsed workflow document: upgrades older ai_mime layouts, then checks the schema and
 * every cross-field rule, returning all problems at once.
 */
export function checkWorkflow(document: unknown, context: WorkflowContext = {}): WorkflowCheck {
  const upgrade = upgradeWorkflowDocument(document);
  const parsed = Workflow.safeParse(upgrade.document, { reportInput: true });
  const problems = sortProblems(
    dedupe([
      ...upgrade.problems,
      ...(parsed.success ? [] : zodProblems(parsed.error)),
      ...checkWorkflowRules(upgrade.document, context),
    ]),
  );
  const { from, warnings } = upgrade;
  if (parsed.success && problems.length === 0) return { ok: true, workflow: parsed.data, from, warnings };
  return { ok: false, problems, from, warnings, draft: parsed.success ? parsed.data : null };
}

/** A workflow folder or a schema.json path -> the schema.json path. */
export async function resolveWorkflowFile(target: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(target);
  } catch (error) {
    throw new FileReadError(target, 'no such workflow folder or file; check the path', { cause: error });
  }
  return info.isDirectory() ? join(target, WORKFLOW_FILE) : target;
}

export interface LoadedWorkflow {
  workflow: WorkflowType;
  /** The schema.json that was read. */
  file: string;
  /** The SHA-256 (hex) of the bytes of `file` that were read: the workflow's fingerprint. */
  sha256: string;
  /** The layout on disk: ai_mime files are upgraded in memory, not rewritten. */
  from: WorkflowLayout;
  /** What reading an older layout changed that the author should know. */
  warnings: Problem[];
  /**
   * The workflow's optimized_plan.json (ai_mime's Pass C), when it has one; `workflow` is already
   * completed by it (see {@link applyOptimizedPlan}), for a run, never to be saved.
   */
  optimizedPlan: OptimizedPlan | null;
}

/** What the rules read beside a workflow's schema.json: the constants of its optimized_plan.json. */
export async function readWorkflowContext(dir: string): Promise<WorkflowContext> {
  const { plan } = await readOptimizedPlan(dir);
  return plan ? { constants: plan.constants } : {};
}

/** Reads and validates a workflow from its folder or its schema.json; throws on any problem. */
export async function loadWorkflow(target: string): Promise<LoadedWorkflow> {
  const file = await resolveWorkflowFile(target);
  await settleFolder(dirname(file));
  const { plan, warnings: planWarnings } = await readOptimizedPlan(dirname(file));
  const { text, sha256 } = await readTextFileWithDigest(file);
  const result = checkWorkflow(parseJsonText(text, file), plan ? { constants: plan.constants } : {});
  if (!result.ok) throw new ValidationError(file, 'workflow', result.problems);
  return {
    workflow: plan ? applyOptimizedPlan(result.workflow, plan) : result.workflow,
    file,
    sha256,
    from: result.from,
    warnings: [...result.warnings, ...planWarnings],
    optimizedPlan: plan,
  };
}

/**
 * The layout a save writes: a file that came in ai_mime's v2 layout is written back in it (so ai_mime
 * still reads it), anything else as mime v2.
 */
function savedLayout(from: WorkflowLayout): 'v2' | 'ai_mime-v2' {
  return from === 'ai_mime-v2' ? 'ai_mime-v2' : 'v2';
}

/**
 * The JSON text mime writes for a workflow: v2, with `$schema` pointing at the file beside it; or, for
 * a workflow read from ai_mime's v2 layout (`from`), that layout with every field it had.
 */
export function serializeWorkflow(workflow: WorkflowType, from: WorkflowLayout = 'v2'): string {
  if (savedLayout(from) === 'ai_mime-v2') return `${JSON.stringify(toAiMimeDocument(workflow), null, 2)}\n`;
  const { $schema: _old, ...rest } = workflow;
  return `${JSON.stringify({ $schema: `./${WORKFLOW_JSON_SCHEMA_FILE}`, ...rest }, null, 2)}\n`;
}

/**
 * Writes a workflow file (normally `<workflow>/schema.json`) atomically, in the layout it was read
 * from (see {@link serializeWorkflow}); a mime v2 file gets the JSON Schema beside it so editors
 * autocomplete and check the file offline.
 */
export async function writeWorkflow(
  file: string,
  workflow: WorkflowType,
  from: WorkflowLayout = 'v2',
): Promise<void> {
  if (savedLayout(from) === 'v2')
    await writeJsonAtomic(join(dirname(file), WORKFLOW_JSON_SCHEMA_FILE), workflowJsonSchema());
  await writeFileAtomically(file, serializeWorkflow(workflow, from));
}
