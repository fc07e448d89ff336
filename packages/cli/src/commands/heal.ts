import { applyHeal, type HealPlan, planHeal } from '@mime-desktop/replay';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { mark, printData, printJson, say, style } from '../output.ts';

interface HealFlags {
  apply?: boolean;
  reject?: string[];
  json?: boolean;
}

/** The diff with its lines coloured, and what the heal adds besides. */
function describePlan(plan: HealPlan): string[] {
  const diff = plan.diff
    .split('\n')
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? style.green(line)
        : line.startsWith('-') && !line.startsWith('---')
          ? style.red(line)
          : line,
    );
  // The workflow-folder name of each run frame the heal copies in.
  const copiedAs = new Map(plan.frames.map((f) => [f.from, f.to]));
  return [
    `Heal of ${plan.workflowDir} learned by run ${plan.runId}:`,
    ...plan.changes.flatMap((c) => [
      `  - [${c.id}] ${c.text}${plan.rejected.includes(c.id) ? style.yellow(' (rejected: kept as recorded)') : ''}`,
      ...(c.kind === 'agent' && !plan.rejected.includes(c.id)
        ? c.after.map(
            (step) =>
              `      + ${step.action_type} ${step.intent}${step.screenshot ? style.dim(` (frame ${copiedAs.get(step.screenshot) ?? step.screenshot})`) : ''}`,
          )
        : []),
    ]),
    plan.recorded
      ? `  - manifest.jsonl recorded again from the run (${plan.frames.length} frames added under screenshots/heal-${plan.runId}/)`
      : `  - manifest.jsonl written: the workflow had no recording; the run's actions are its first (${plan.frames.length} frames added under screenshots/heal-${plan.runId}/)`,
    '',
    ...diff,
  ];
}

/** Plans the heal of a run and, with `apply`, applies it; prints the change either way. */
export async function runHeal(runDir: string, flags: HealFlags): Promise<ExitCode> {
  const plan = await planHeal(runDir, { reject: flags.reject });
  const applied = flags.apply ? await applyHeal(plan) : null;
  if (flags.json) {
    printJson({
      workflow: plan.workflowDir,
      run_id: plan.runId,
      recorded: plan.recorded,
      changes: plan.changes.map(({ id, kind, subtask_i, text }) => ({ id, kind, subtask_i, text })),
      rejected: plan.rejected,
      frames: plan.frames.map((f) => f.to),
      diff: plan.diff,
      applied: applied !== null,
      backup: applied?.backup ?? null,
    });
  } else {
    for (const line of describePlan(plan)) say(line);
    if (applied) {
      say(
        `${mark.ok()} healed: schema.json and manifest.jsonl written; the previous schema is ${applied.backup}`,
      );
      printData(plan.workflowDir);
    } else {
      say(style.dim(`  apply it with: mime heal ${runDir} --apply`));
    }
  }
  return EXIT.ok;
}

export function registerHeal(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('heal')
    .summary('write what an auto run learned back into its workflow')
    .description(
      'Show, and with --apply write, what an auto replay learned about its out-of-date workflow (<run-dir>/heal.json): targets re-found at a new place, subtasks the agent had to do. The workflow is recorded again from the run (its frames and actions; typed param values as {param}, secrets never stored), so the next auto replay on that screen needs no model. Prints a diff of schema.json. A workflow changed since the run is not overwritten; the previous schema.json and manifest.jsonl are kept beside the new ones.',
    )
    .argument('<run-dir>', 'a run folder: <workflow>/.replay/<run_id>/')
    .option('--apply', 'write the change (after validating it)')
    .option(
      '--reject <change...>',
      'leave out changes by their id (subtask-<n>, as listed): those subtasks keep their recorded steps',
    )
    .option('--json', 'print the change as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime heal workflows/play-song/.replay/20261122T103000Z-3fa2\n  mime heal workflows/play-song/.replay/20261122T103000Z-3fa2 --apply\n  mime heal workflows/play-song/.replay/20261122T103000Z-3fa2 --apply --reject subtask-1\n\nExit codes: 0 shown or applied, 2 nothing to heal (or every change rejected), a workflow changed since the run, an unknown change id, or an invalid result.',
    )
    .action((runDir: string, flags: HealFlags) => run(runHeal(runDir, flags)));
}
