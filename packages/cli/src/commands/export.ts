/** `mime export skill`: a workflow as an Agent Skills folder, for agents that read skills. */
import { realpathSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { type HomeOptions, resolveWorkflowTarget } from '../home.ts';
import { printData, say, style } from '../output.ts';

interface SkillFlags extends HomeOptions {
  out?: string;
  force?: boolean;
}

async function runExportSkill(target: string, flags: SkillFlags): Promise<ExitCode> {
  const { exportSkill } = await import('@mime-desktop/mcp');
  const skill = await exportSkill(resolveWorkflowTarget(target, flags), {
    out: flags.out,
    force: flags.force,
    // This mime, wherever the skill is copied to: its run script uses it before any `mime` on the PATH.
    mimeBin: process.argv[1] ? realpathSync(process.argv[1]) : undefined,
  });
  printData(skill.dir);
  say(
    `${style.green('✓')} skill "${skill.name}" written: SKILL.md, scripts/run.mjs and the workflow in assets/`,
  );
  say(style.dim(`  copy it into your agent's skills folder (e.g. ~/.claude/skills/${skill.name})`));
  return EXIT.ok;
}

export function registerExport(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const command = program.command('export').summary('export a workflow for other tools (an Agent Skill)');
  command
    .command('skill')
    .summary('write a workflow as an Agent Skills folder')
    .description(
      'Write a workflow as an Agent Skills folder (agentskills.io), named after its task: SKILL.md (what it does, when to use it, its inputs with types and examples, what it returns, its success criteria), scripts/run.mjs (runs mime replay ... --json) and the workflow itself in assets/workflow/. Sensitive params come from MIME_PARAM_<NAME> only.',
    )
    .argument('<workflow>', 'workflow folder, its schema.json, or a session id under <home>/workflows/')
    .option('--out <dir>', 'folder to write the skill folder into (default: the current directory)')
    .option('--force', 'replace a skill folder of the same name')
    .option('--home <dir>', 'data root for session ids (default: $MIME_HOME, else the current directory)')
    .addHelpText(
      'after',
      '\nExamples:\n  mime export skill workflows/play-song --out ~/.claude/skills\n\nExit codes: 0 written, 2 an unreadable workflow or the folder exists.',
    )
    .action((target: string, flags: SkillFlags) => run(runExportSkill(target, flags)));
  command.addHelpText(
    'after',
    '\nExamples:\n  mime export skill workflows/play-song --out ~/.claude/skills\n\nExit codes: 0 written, 2 an unreadable workflow or the folder exists.',
  );
}
