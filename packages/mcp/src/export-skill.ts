/**
 * A workflow as an Agent Skill (agentskills.io): a folder named after the skill with `SKILL.md`
 * (frontmatter `name`, `description`, `compatibility`, `metadata`; when to use it, its inputs, what
 * it returns, its success criteria), `scripts/run.mjs` (runs `mime replay <workflow> --json`) and the
 * workflow itself under `assets/workflow/`, so the folder works wherever it is copied. Sensitive params
 * come only from `MIME_PARAM_<NAME>`.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  describeSafety,
  inert,
  isRequiredParam,
  loadWorkflow,
  markdownText,
  RUNS_FOLDER,
  slugOf,
  type TaskParam,
  type Workflow,
  writeFileAtomically,
} from '@mime-desktop/schema';
import { stringify } from 'yaml';
import { McpOptionError } from './errors.ts';

export interface ExportSkillOptions {
  /** The folder the skill folder is written into. Default: the current directory. */
  out?: string;
  /** Replace a skill folder of the same name. Default false. */
  force?: boolean;
}

export interface ExportedSkill {
  name: string;
  dir: string;
}

/** The skill's name: lowercase letters, digits and single hyphens, at most 64 characters. */
export function skillNameOf(taskName: string): string {
  return slugOf(taskName, '-', 64) || 'workflow';
}

const env = (param: TaskParam) => `MIME_PARAM_${param.name.toUpperCase()}`;

function extractsOf(workflow: Workflow): string[] {
  return workflow.plan.subtasks.flatMap((s) =>
    s.steps.flatMap((step) => (step.variable_name ? [step.variable_name] : [])),
  );
}

function descriptionOf(workflow: Workflow): string {
  const what = inert(
    workflow.task_description_user || workflow.detailed_task_description || workflow.task_name,
  ).trim();
  const sentence = /[.!?]$/.test(what) ? what : `${what}.`;
  return `${sentence} Use when asked to ${inert(workflow.task_name)} on this computer's desktop: it replays a workflow recorded once with mime, with new values, and returns its outcome as JSON.`.slice(
    0,
    1024,
  );
}

/**
 * One word for a POSIX shell, in single quotes (nothing inside is expanded: an example of
 * `$(rm -rf ~)` stays text when an agent copies the line), made inert for the document.
 */
function shellWord(text: string): string {
  return `'${inert(text).replace(/'/g, `'\\''`)}'`;
}

/** The Markdown of SKILL.md, frontmatter first. */
export function skillMarkdown(workflow: Workflow, name: string): string {
  const frontmatter = stringify({
    name,
    description: descriptionOf(workflow),
    compatibility:
      'Needs the mime command (Node 20.19+; see "Setup" below) and a desktop session with the app the workflow drives (Linux/X11 tested).',
    metadata: { 'mime-task': inert(workflow.task_name), 'mime-workflow-version': String(workflow.version) },
  }).trimEnd();
  const params = workflow.task_params;
  const plain = params.filter((p) => !p.sensitive);
  const secrets = params.filter((p) => p.sensitive);
  // Text from the workflow renders as the words it holds: no HTML, link, heading or escape sequence.
  const cell = (text: string) => markdownText(text.replace(/\n/g, ' '));
  const task = markdownText(workflow.task_name);
  const about = markdownText(
    workflow.task_description_user || workflow.detailed_task_description || workflow.task_name,
  );
  const requirement = (p: TaskParam) =>
    isRequiredParam(p) ? ' (required)' : p.optional ? ' (optional)' : ` (default ${cell(String(p.default))})`;
  const inputs =
    params.length === 0
      ? 'None.'
      : [
          '| name | type | description | recorded example | how |',
          '| --- | --- | --- | --- | --- |',
          ...params.map(
            (p) =>
              `| \`${p.name}\` | ${p.type} | ${cell(p.description || p.name)} | ${p.sensitive || p.example === null ? '' : cell(p.example)} | ${p.sensitive ? `environment \`${env(p)}\` only` : `\`${p.name}=<value>\``}${requirement(p)} |`,
          ),
        ].join('\n');
  const example = plain.map((p) => shellWord(`${p.name}=${p.example ?? `<${p.name}>`}`)).join(' ');
  const extracts = extractsOf(workflow);
  return `---
${frontmatter}
---

# ${task}

${about}

## When to use

When the user asks to ${task} on this computer. The skill drives the real desktop (mouse
and keyboard), one replay at a time: do not run it while someone works at the screen, and never run
two at once.

${safetySection(workflow)}## Inputs

${inputs}
${secrets.length > 0 ? `\nSensitive params are never arguments: set ${secrets.map((p) => `\`${env(p)}\``).join(', ')} in the environment before running.\n` : ''}
## Setup

The \`mime\` command on the PATH, or \`MIME_BIN\` set to it. mime is not on npm yet: clone
https://github.com/mime-desktop/mime, run \`./setup.sh\` in it, then either set \`MIME_BIN\` to the
clone's \`packages/cli/bin/mime.js\` or install its packed tarballs (the README's "Install" says how).
Once published: \`npm install -g @mime-desktop/cli\`.

## Run

\`\`\`sh
node scripts/run.mjs ${example}
\`\`\`

Each \`name=value\` argument is a param; other \`--options\` go to \`mime replay\` as they are (for
example \`--mode trace\`, \`--fresh\`, \`--max-duration 120\`). Give every required param: one left out
is an error naming it (exit 2), never its recorded example; \`--use-examples\` replays with the recorded
examples on purpose. The workflow is in \`assets/workflow/\`.

## What it returns

The run's summary as JSON on stdout: \`outcome\` (\`success\`, \`failed\`, \`aborted\`), \`code\` and
\`reason\` when it did not succeed, \`extracts\`${extracts.length > 0 ? ` (${extracts.map((e) => `\`${e}\``).join(', ')})` : ''}, \`usage\`, and \`report\` (the
path of report.html with every step's screenshots). Exit code 0 success, 1 the replay failed, 2 bad
input (a missing param), 130 aborted.

## Success criteria

${workflow.success_criteria ? markdownText(workflow.success_criteria) : 'The task is done as recorded.'}
`;
}

/** The workflow's safety facts as a section, or nothing when it states none. */
function safetySection(workflow: Workflow): string {
  const lines = describeSafety(workflow);
  if (lines.length === 0) return '';
  return `## Safety\n\n${lines.map((line) => `- ${markdownText(line)}`).join('\n')}\n\n`;
}

const RUN_SCRIPT = `#!/usr/bin/env node
// Replays this skill's workflow with mime: \`node scripts/run.mjs name=value ... [--mime-options]\`.
// The summary is JSON on stdout. MIME_BIN names another mime command (default: mime on the PATH).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const workflow = fileURLToPath(new URL('../assets/workflow/', import.meta.url));
const args = process.argv.slice(2).flatMap((arg) => (arg.startsWith('-') ? [arg] : ['--param', arg]));
const mime = process.env.MIME_BIN || 'mime';
const run = spawnSync(mime, ['replay', workflow, '--json', ...args], { stdio: 'inherit', shell: false });
if (run.error) {
  console.error(\`could not run \${mime}: \${run.error.message} (set MIME_BIN to a mime command, or install mime: see SKILL.md, Setup)\`);
  process.exit(2);
}
process.exit(run.status ?? 1);
`;

/** What of a workflow folder the skill carries: not its runs, batches or reflect drafts. */
const LEFT_OUT = new Set([
  RUNS_FOLDER,
  '.batch',
  '.mime.lock',
  '.mime.lock.holder',
  'schema.draft.json',
  'step_cards.json',
  'heal.json',
]);

/** Writes the skill folder of a workflow; returns its name and folder. */
export async function exportSkill(
  workflowDir: string,
  options: ExportSkillOptions = {},
): Promise<ExportedSkill> {
  const loaded = await loadWorkflow(workflowDir);
  const source = resolve(workflowDir.endsWith('.json') ? join(workflowDir, '..') : workflowDir);
  const name = skillNameOf(loaded.workflow.task_name);
  const dir = join(resolve(options.out ?? '.'), name);
  if (options.force) await rm(dir, { recursive: true, force: true });
  await mkdir(dirname(dir), { recursive: true });
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new McpOptionError(`${dir} exists: remove it, pick another --out, or pass --force to replace it`);
  }
  await mkdir(join(dir, 'scripts'));
  await cp(source, join(dir, 'assets', 'workflow'), {
    recursive: true,
    filter: (path) => !LEFT_OUT.has(path.slice(source.length + 1).split('/')[0] ?? ''),
  });
  await writeFile(join(dir, 'scripts', 'run.mjs'), RUN_SCRIPT, { mode: 0o755 });
  await writeFileAtomically(join(dir, 'SKILL.md'), skillMarkdown(loaded.workflow, name));
  return { name, dir };
}
