import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  checkWorkflow,
  JsonSyntaxError,
  MimeError,
  namedWriteError,
  type Problem,
  parseJsonText,
  readTextFile,
  readWorkflowContext,
  resolveWorkflowFile,
  serializeWorkflow,
  type WorkflowContext,
  withFolderLock,
  writeWorkflow,
} from '@mime-desktop/schema';

/** Opens a file in an editor and resolves when the editor exits. */
export type EditorRunner = (file: string) => Promise<void>;

/** The editor failed to start or exited with an error. */
export class EditorError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_EDITOR_FAILED', message, options);
  }
}

/** The user abandoned an invalid edit; nothing was written. */
export class EditAbortedError extends MimeError {
  readonly keptCopy: string | null;

  constructor(message: string, keptCopy: string | null) {
    super('MIME_ABORTED', message);
    this.keptCopy = keptCopy;
  }
}

/** The workflow changed on disk while it was being edited: the edit is kept, the file is not overwritten. */
export class EditConflictError extends MimeError {
  readonly keptCopy: string;

  constructor(file: string, keptCopy: string) {
    super(
      'MIME_EDIT_CONFLICT',
      `${file} changed on disk while you edited it (another edit, a heal or a reflect): it was not overwritten; your edit is kept in ${keptCopy}: edit again and bring your change over`,
    );
    this.keptCopy = keptCopy;
  }
}

/** The editor command: `$VISUAL`, then `$EDITOR`, then `vi`. It may carry arguments (`code --wait`). */
export function editorCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/** Runs the editor through the shell (so `code --wait` works) with the terminal attached. */
export function shellEditor(command: string = editorCommand()): EditorRunner {
  return (file) =>
    new Promise((resolve, reject) => {
      const child = spawn(`${command} "${file.replaceAll('"', '\\"')}"`, { shell: true, stdio: 'inherit' });
      child.on('error', (error) =>
        reject(
          new EditorError(`could not start the editor "${command}": ${error.message}; set VISUAL or EDITOR`, {
            cause: error,
          }),
        ),
      );
      child.on('exit', (code, signal) => {
        if (signal)
          reject(
            new EditAbortedError(`the editor was stopped by ${signal}; the workflow is unchanged`, null),
          );
        else if (code !== 0)
          reject(
            new EditorError(`the editor "${command}" exited with code ${code}; the workflow is unchanged`),
          );
        else resolve();
      });
    });
}

const HEADER_PREFIX = '//';

function header(file: string, problems: readonly Problem[]): string {
  const lines = [
    `mime edit: ${file}`,
    'Save to apply. Save the file empty, or unchanged after an error, to cancel.',
    'These comment lines are removed when you save.',
  ];
  if (problems.length > 0) {
    lines.push(
      '',
      `The last save was NOT applied: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}:`,
    );
    lines.push(...problems.map((p) => `  ${p.path ? `${p.path}: ` : ''}${p.message}`));
  }
  return `${lines.map((l) => `${HEADER_PREFIX} ${l}`.trimEnd()).join('\n')}\n`;
}

/** Removes the leading comment block this command writes. */
function stripHeader(text: string): string {
  const lines = text.split('\n');
  let n = 0;
  while (n < lines.length && (lines[n] ?? '').trimStart().startsWith(HEADER_PREFIX)) n += 1;
  return lines.slice(n).join('\n');
}

function problemsOf(
  text: string,
  file: string,
  context: WorkflowContext,
): { problems: Problem[]; workflow?: ReturnType<typeof checkWorkflow> } {
  try {
    const result = checkWorkflow(parseJsonText(text, file), context);
    return result.ok ? { problems: [], workflow: result } : { problems: result.problems, workflow: result };
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return {
      problems: [
        {
          path: '',
          message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.message.replace(/^.*invalid JSON: /, '')}`,
        },
      ],
    };
  }
}

export interface EditOptions {
  /** How to open the file. Default: {@link shellEditor} with `$VISUAL`/`$EDITOR`/`vi`. */
  runEditor?: EditorRunner;
  /** Called after each invalid save, before the editor reopens. */
  onInvalid?: (problems: readonly Problem[]) => void;
}

export type EditResult = { outcome: 'saved' | 'unchanged'; file: string };

/**
 * Edits a workflow the way `kubectl edit` does: opens a copy in the editor, validates it on save and,
 * while invalid, reopens it with the problems in a comment header. Only a valid workflow is ever
 * written, atomically. Saving the copy empty, or unchanged after an error, cancels: throws
 * {@link EditAbortedError} and keeps the invalid copy for the user.
 */
export async function editWorkflow(target: string, options: EditOptions = {}): Promise<EditResult> {
  const runEditor = options.runEditor ?? shellEditor();
  const file = await resolveWorkflowFile(target);
  const original = await readTextFile(file);
  const context = await readWorkflowContext(dirname(file));
  const initial = problemsOf(original, file, context);
  // An ai_mime file opens as it will be saved, so what the user sees is what is written: v1 upgraded to
  // mime v2; v2 in its own layout with every field it had (ai_mime still reads it afterwards), less a
  // secret stored in it, which never reaches the editor's copy.
  let presented =
    initial.workflow?.ok && initial.workflow.from !== 'v2'
      ? serializeWorkflow(initial.workflow.workflow, initial.workflow.from)
      : original;
  let problems = initial.problems;

  // The copy lives in TMPDIR: a full or read-only one is named (the workflow is untouched).
  const dir = await mkdtemp(join(tmpdir(), 'mime-edit-')).catch((error: unknown) => {
    throw namedWriteError(join(tmpdir(), 'mime-edit-'), error);
  });
  const copy = join(dir, 'schema.json');
  const writeCopy = (text: string) =>
    writeFile(copy, text, { mode: 0o600 }).catch((error: unknown) => {
      throw namedWriteError(copy, error);
    });
  let keep = false;
  try {
    for (let round = 0; ; round += 1) {
      await writeCopy(header(file, problems) + presented);
      await runEditor(copy);
      const body = stripHeader(await readTextFile(copy));
      if (body.trim() === '') {
        throw new EditAbortedError(
          'edit cancelled: the file was saved empty; the workflow is unchanged',
          null,
        );
      }
      if (body.trimEnd() === presented.trimEnd()) {
        if (round === 0 && problems.length === 0) return { outcome: 'unchanged', file };
        keep = round > 0;
        throw new EditAbortedError(
          `edit cancelled: saved unchanged while invalid; the workflow is unchanged${keep ? `; your edit is kept in ${copy}` : ''}`,
          keep ? copy : null,
        );
      }
      const checked = problemsOf(body, file, context);
      const valid = checked.workflow?.ok ? checked.workflow : null;
      if (valid) {
        // Under the folder's lock, and only over the file as it was when the edit began.
        await withFolderLock(dirname(file), { holder: 'mime edit' }, async () => {
          if ((await readTextFile(file)) !== original) {
            await writeCopy(body);
            keep = true;
            throw new EditConflictError(file, copy);
          }
          await writeWorkflow(file, valid.workflow, valid.from);
        });
        return { outcome: 'saved', file };
      }
      problems = checked.problems;
      presented = body;
      options.onInvalid?.(problems);
    }
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}
