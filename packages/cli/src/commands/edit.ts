import type { Command } from 'commander';
import { editWorkflow } from '../edit.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { mark, say } from '../output.ts';

export function registerEdit(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('edit')
    .summary('edit a workflow in your editor, validated on save')
    .description(
      "Open a workflow's schema.json in $VISUAL or $EDITOR (default vi). On save it is validated; while it " +
        'is invalid the editor reopens with the problems listed at the top. Only a valid workflow is written, atomically. Save the file empty, or unchanged after an error, to cancel.',
    )
    .argument('<workflow>', 'workflow folder or its schema.json')
    .addHelpText(
      'after',
      '\nExamples:\n  mime edit workflows/20260101T120000Z-play-song\n  EDITOR="code --wait" mime edit workflows/20260101T120000Z-play-song/schema.json\n\nExit codes: 0 saved or nothing changed, 1 the editor failed, 2 unreadable workflow, 130 cancelled.',
    )
    .action((target: string) =>
      run(
        (async () => {
          const result = await editWorkflow(target, {
            onInvalid: (problems) =>
              say(`${mark.fail()} ${problems.length} problem(s); reopening the editor`),
          });
          say(
            result.outcome === 'saved'
              ? `${mark.ok()} saved ${result.file}`
              : `${mark.ok()} no changes; ${result.file} left as it was`,
          );
          return EXIT.ok;
        })(),
      ),
    );
}
