import { type Inventory, listHome, runStatus, type SafetyFacts } from '@mime-desktop/schema';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { formatTable, inert, printData, printJson, say, style } from '../output.ts';

const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');

/** The listing as `mime list` prints it for a person. */
export function renderInventory(inventory: Inventory): string {
  const parts: string[] = [];
  parts.push(style.bold(`Recordings (${inventory.recordings.length})`));
  parts.push(
    inventory.recordings.length === 0
      ? style.dim('  none yet: `mime record --name "..."`')
      : formatTable(
          ['SESSION', 'NAME', 'CREATED', 'EVENTS'],
          inventory.recordings.map((r) => [
            inert(r.session_id),
            r.name === null ? style.red(inert(r.problem ?? '?')) : inert(r.name),
            day(r.created_at),
            String(r.events),
          ]),
        ),
  );
  parts.push('', style.bold(`Workflows (${inventory.workflows.length})`));
  parts.push(
    inventory.workflows.length === 0
      ? style.dim('  none yet: `mime reflect --session <id>`')
      : formatTable(
          ['SESSION', 'NAME', 'CREATED', 'STATE', 'STEPS', 'PARAMS', 'SAFETY', 'RUNS', 'LAST RUN'],
          inventory.workflows.map((w) => [
            inert(w.session_id),
            inert(w.name ?? '-'),
            day(w.created_at),
            w.state === 'ready' ? w.state : style.yellow(w.state),
            String(w.steps),
            inert(w.params.join(',')) || '-',
            safetyCell(w.safety),
            String(w.runs.length),
            w.last_run ? `${runStatus(w.last_run)} ${day(w.last_run.started_at)}` : '-',
          ]),
        ),
  );
  return parts.join('\n');
}

/** The safety facts in a few words: `login, 2 side effects, stops before payment`; `-` when none are said (unknown). */
function safetyCell(safety: SafetyFacts | null): string {
  if (!safety) return '-';
  const effects = safety.side_effects?.length;
  const words = [
    safety.requires_login === true ? 'login' : safety.requires_login === false ? 'no login' : '',
    effects === 0 ? 'no side effects' : effects ? `${effects} side effect${effects === 1 ? '' : 's'}` : '',
    safety.stops_before_payment === true ? 'stops before payment' : '',
    safety.stops_before_payment === false ? style.yellow('pays') : '',
  ].filter(Boolean);
  return words.length > 0 ? words.join(', ') : '-';
}

export function registerList(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('list')
    .summary('list recordings, workflows and their runs')
    .description('List the recordings, workflows and replay runs under the data root.')
    .option(
      '--home <dir>',
      'data root holding recordings/ and workflows/ (default: $MIME_HOME, else the current directory)',
    )
    .option('--json', 'print everything as JSON on stdout, runs included')
    .addHelpText(
      'after',
      "\nExamples:\n  mime list\n  mime list --home ~/mime --json | jq '.workflows[].name'\n\nExit codes: 0 listed (a damaged workflow is listed with its problem), 2 the data root cannot be read.",
    )
    .action((options: HomeOptions & { json?: boolean }) =>
      run(
        (async () => {
          const inventory = await listHome(resolveHome(options));
          if (options.json) printJson(inventory);
          else {
            say(style.dim(`data root: ${inventory.home}`));
            printData(renderInventory(inventory));
            const broken = inventory.workflows.filter((w) => w.problem);
            for (const w of broken)
              say(`${style.yellow('!')} ${inert(w.session_id)}: ${inert(w.problem ?? '')}`);
          }
          return EXIT.ok;
        })(),
      ),
    );
}
