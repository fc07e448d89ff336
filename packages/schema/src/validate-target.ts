import { dirname } from 'node:path';
import { FileReadError, JsonSyntaxError, type Problem } from './errors.ts';
import { settleFolder } from './folder-lock.ts';
import { locateJsonPath, parseJsonText, readTextFile } from './json-files.ts';
import { checkWorkflow, readWorkflowContext, resolveWorkflowFile } from './workflow-file.ts';
import type { WorkflowLayout } from './workflow-upgrade.ts';

/** A problem with where it stands in the file, when that is known (1-based). */
export interface LocatedProblem extends Problem {
  line?: number;
  column?: number;
}

export interface WorkflowReport {
  /** The schema.json that was checked. */
  file: string;
  valid: boolean;
  /** The layout on disk (ai_mime's are upgraded in memory), or null when the file did not parse. */
  from: WorkflowLayout | null;
  problems: LocatedProblem[];
  /** What reading an older layout changed that the author should know (a stored secret ignored). */
  warnings: Problem[];
}

/**
 * Checks one workflow folder or schema.json and reports every problem; never throws for a bad file
 * (unreadable, invalid JSON, invalid workflow): that is what the report is for.
 */
export async function validateWorkflowTarget(target: string): Promise<WorkflowReport> {
  let file = target;
  try {
    file = await resolveWorkflowFile(target);
    await settleFolder(dirname(file));
    const text = await readTextFile(file);
    const result = checkWorkflow(parseJsonText(text, file), await readWorkflowContext(dirname(file)));
    const { from, warnings } = result;
    if (result.ok) return { file, valid: true, from, problems: [], warnings };
    const located = result.problems.map((p): LocatedProblem => {
      const at = from !== 'ai_mime-v1' ? locateJsonPath(text, p.path) : null;
      return at ? { ...p, ...at } : p;
    });
    return { file, valid: false, from, problems: located, warnings };
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      const reason = error.message.replace(/^.*?invalid JSON: /, 'invalid JSON: ');
      return {
        file,
        valid: false,
        from: null,
        problems: [{ path: '', message: reason, line: error.line, column: error.column }],
        warnings: [],
      };
    }
    if (error instanceof FileReadError) {
      return {
        file,
        valid: false,
        from: null,
        problems: [{ path: '', message: error.message.replace(`${error.file}: `, '') }],
        warnings: [],
      };
    }
    throw error;
  }
}
