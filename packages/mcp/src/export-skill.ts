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
  distinctSlugOf,
  inert,
  isRequiredParam,
  loadWorkflow,
  markdownText,
  RUNS_FOLDER,
  type TaskParam,
  type Workflow,
  writeFileAtomically,
} from '@mime-desktop/schema';
import { stringify } from 'yaml';
import { McpOptionError } from './errors.ts';

/** Words of `mime --help` that tell mime from another command named `mime`. */
export const MIME_IDENTITY = 'Teach a computer a desktop task by watching it once';

export interface ExportSkillOptions {
  /** The folder the skill folder is written into. Default: the current directory. */
  out?: string;
  /**
   * The absolute path of the mime that exports (the CLI passes its own), written into the run script
   * so the skill runs with it wherever it is copied. Default none: MIME_BIN or `mime` on the PATH.
   */
  mimeBin?: string;
  /** Replace a skill folder of the same name. Default false. */
  force?: boolean;
}

export interface ExportedSkill {
  name: string;
  dir: string;
}

/**
 * The skill's name: lowercase letters, digits and single hyphens, at most 64 characters; a name in
 * another script gets a short hash of itself (`播放歌曲` → `workflow-1c0e7a`), so such skills stay apart.
 */
export function skillNameOf(taskName: string): string {
  return distinctSlugOf(taskName, '-', 64, 'workflow');
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

## By hand

When mime cannot run here, the task can be done at the desktop as it was recorded, \`{name}\` standing
for a param's value:

${handPlan(workflow)}
`;
}

/** The workflow's safety facts as a section, or nothing when it states none. */
function safetySection(workflow: Workflow): string {
  const lines = describeSafety(workflow);
  if (lines.length === 0) return '';
  return `## Safety\n\n${lines.map((line) => `- ${markdownText(line)}`).join('\n')}\n\n`;
}

/** The workflow's subtasks and steps as numbered Markdown, for a person or an agent at the desktop. */
function handPlan(workflow: Workflow): string {
  return workflow.plan.subtasks
    .map((subtask, k) => {
      const steps = subtask.steps.map((step) => {
        const value =
          step.action_type === 'EXTRACT'
            ? ` (read it as \`${step.variable_name ?? 'value'}\`)`
            : step.action_value === null
              ? ''
              : ` (${step.action_type.toLowerCase()}: ${markdownText(step.action_value)})`;
        return `   - ${markdownText(step.intent || step.target.primary)}${value}`;
      });
      return [`${k + 1}. ${markdownText(subtask.text)}`, ...steps].join('\n');
    })
    .join('\n');
}

/**
 * `scripts/run.mjs`: replays the skill's workflow with the mime that exported it (its absolute path,
 * written in), or MIME_BIN, or `mime` on the PATH, each used only when its `--help` says it is mime
 * (npm's `mime` package is a MIME-type tool that exits 0 too). Runs are written under the mime home
 * (`$MIME_HOME/skill-runs/<skill>`, else `$XDG_STATE_HOME/mime/skill-runs/<skill>`), never into the
 * skill's folder, which may be read-only or shared.
 */
function runScript(name: string, exportedBy: string | null): string {
  return `#!/usr/bin/env node
// Replays this skill's workflow with mime: \`node scripts/run.mjs name=value ... [--mime-options]\`.
// The summary is JSON on stdout. The mime used: MIME_BIN, else the one that exported this skill, else
// \`mime\` on the PATH; each only when it says it is mime. Runs go under the mime home, not here.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXPORTED_BY = ${JSON.stringify(exportedBy)};
const SKILL = ${JSON.stringify(name)};
const IDENTITY = ${JSON.stringify(MIME_IDENTITY)};
const workflow = fileURLToPath(new URL('../assets/workflow/', import.meta.url));
// A script file runs on this Node; a command runs as it is.
const launch = (bin) => (/\\.(c|m)?js$/.test(bin) ? [process.execPath, [bin]] : [bin, []]);
const isMime = (bin) => {
  const [command, first] = launch(bin);
  const help = spawnSync(command, [...first, '--help'], { encoding: 'utf8', shell: false, timeout: 30000 });
  return help.status === 0 && String(help.stdout).includes(IDENTITY);
};
const candidates = [process.env.MIME_BIN, EXPORTED_BY, 'mime'].filter(Boolean);
const mime = candidates.find(isMime);
if (!mime) {
  console.error(\`mime was not found (tried \${candidates.join(', ')}): set MIME_BIN to the mime command, or install mime (see SKILL.md, Setup)\`);
  process.exit(2);
}
const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
const runs = process.env.MIME_HOME ? join(process.env.MIME_HOME, 'skill-runs', SKILL) : join(state, 'mime', 'skill-runs', SKILL);
// A \`name=value\` argument is a param; anything else (\`--mode trace\`, \`--max-duration 120\`) is an option of
// mime replay, its value included. A required param left out is mime's error (exit 2), naming it.
const args = [];
for (const arg of process.argv.slice(2)) {
  const param = /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg) && args.at(-1) !== '--param';
  args.push(...(param ? ['--param', arg] : [arg]));
}
const [command, first] = launch(mime);
const run = spawnSync(command, [...first, 'replay', workflow, '--json', '--runs-dir', runs, ...args], {
  stdio: 'inherit',
  shell: false,
});
if (run.error) {
  console.error(\`could not run \${mime}: \${run.error.message}\`);
  process.exit(2);
}
process.exit(run.status ?? 1);
`;
}

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
  await writeFile(join(dir, 'scripts', 'run.mjs'), runScript(name, options.mimeBin ?? null), { mode: 0o755 });
  await writeFileAtomically(join(dir, 'SKILL.md'), skillMarkdown(loaded.workflow, name));
  return { name, dir };
}
