import { validateWorkflowTarget, type WorkflowReport } from '@mime-desktop/schema';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { mark, printJson, say, style } from '../output.ts';

const LAYOUT_NOTES: Partial<Record<string, string>> = {
  'ai_mime-v1': ' (ai_mime v1 layout, upgraded in memory; `mime edit` saves it as mime v2)',
  'ai_mime-v2': " (ai_mime's v2 layout, read in memory; saves keep it in that layout)",
};

function describe(report: WorkflowReport): string[] {
  const warnings = report.warnings.map(
    (w) => `  ${style.yellow('warning')} ${w.path ? `${style.bold(w.path)}: ` : ''}${w.message}`,
  );
  if (report.valid) {
    const note = style.dim(LAYOUT_NOTES[report.from ?? ''] ?? '');
    return [`${mark.ok()} ${report.file}: valid workflow${note}`, ...warnings];
  }
  const count = report.problems.length === 1 ? '1 problem' : `${report.problems.length} problems`;
  return [
    `${mark.fail()} ${report.file}: ${count}`,
    ...warnings,
    ...report.problems.map((p) => {
      const where = p.line === undefined ? '' : style.dim(`${report.file}:${p.line}:${p.column} `);
      const path = p.path ? `${style.bold(p.path)}: ` : '';
      return `  ${where}${path}${p.message}`;
    }),
  ];
}

export function registerValidate(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('validate')
    .summary('check workflows for every problem at once')
    .description(
      'Check workflow folders or schema.json files: the schema, and the cross-field rules (templates name declared params or upstream extracts, dependencies point upstream, action values fit action types). Older ai_mime files are upgraded in memory and checked.',
    )
    .argument('<workflow...>', 'workflow folders or schema.json files')
    .option('--json', 'print the reports as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime validate workflows/20260101T120000Z-play-song\n  mime validate workflows/*/ --json\n\nExit codes: 0 all valid, 2 a file is unreadable or invalid.',
    )
    .action((targets: string[], options: { json?: boolean }) =>
      run(
        (async () => {
          const reports: WorkflowReport[] = [];
          for (const target of targets) reports.push(await validateWorkflowTarget(target));
          if (options.json) printJson({ reports });
          else for (const report of reports) for (const line of describe(report)) say(line);
          return reports.every((r) => r.valid) ? EXIT.ok : EXIT.usage;
        })(),
      ),
    );
}
