/** `mime pack` and `mime install`: a workflow shared as one zip, and a zip or a catalog item installed. */
import { createInterface } from 'node:readline/promises';
import type { InstallPreview, PackOptions } from '@mime-desktop/share';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome, resolveWorkflowTarget } from '../home.ts';
import { inert, mark, printData, printJson, say, style } from '../output.ts';

interface PackFlags extends HomeOptions, Omit<PackOptions, 'safety' | 'version'> {
  packageVersion?: string;
  tag?: string[];
  requiresLogin?: boolean;
  sideEffect?: string[];
  stopsBeforePayment?: boolean;
  safetyNote?: string[];
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

async function runPack(target: string, flags: PackFlags): Promise<ExitCode> {
  const { packWorkflow } = await import('@mime-desktop/share');
  const safety = {
    ...(flags.requiresLogin === undefined ? {} : { requires_login: flags.requiresLogin }),
    ...(flags.sideEffect ? { side_effects: flags.sideEffect } : {}),
    ...(flags.stopsBeforePayment === undefined ? {} : { stops_before_payment: flags.stopsBeforePayment }),
    ...(flags.safetyNote ? { safety_notes: flags.safetyNote } : {}),
  };
  const result = await packWorkflow(resolveWorkflowTarget(target, flags), {
    out: flags.out,
    id: flags.id,
    version: flags.packageVersion,
    author: flags.author,
    tags: flags.tag,
    safety,
  });
  if (flags.json) printJson({ archive: result.archive, catalog: result.catalog, item: result.item });
  else printData(result.archive);
  say(
    `${mark.ok()} packed "${inert(result.item.name)}" as ${result.archive}: ${result.manifest.files.length} files, ${result.item.size_bytes} bytes, sha256 ${result.item.sha256}`,
  );
  say(style.dim(`  listed in ${result.catalog}; install it with: mime install ${result.archive}`));
  return EXIT.ok;
}

const yesNo = (value: boolean | null) => (value === null ? 'not said' : value ? 'yes' : 'no');

/** The preview, one fact a line, every text from the package shown inert. */
function showPreview(preview: InstallPreview): void {
  const list = (items: string[]) =>
    items.length === 0 ? 'none said' : items.map((i) => inert(i)).join('; ');
  say(
    `${style.bold('install')} "${inert(preview.name)}" (${inert(preview.id)}${preview.version ? ` ${inert(preview.version)}` : ''}${preview.author ? `, by ${inert(preview.author)}` : ''})`,
  );
  if (preview.description) say(`  ${inert(preview.description)}`);
  say(`  from:          ${inert(preview.source)}`);
  say(`  checked:       ${preview.checked}`);
  say(
    `  files:         ${preview.files} (${preview.bytes} bytes) into ${preview.target}${preview.replaces ? style.yellow(' (replaces the workflow there; a backup is kept)') : ''}`,
  );
  const params = preview.params.map(
    (p) =>
      `${inert(p.name)} (${inert(p.type)}${p.required ? ', required' : ''}${p.sensitive ? ', sensitive' : ''})`,
  );
  say(`  params:        ${params.length === 0 ? 'none' : params.join(', ')}`);
  say(`  starts:        ${preview.starts === null ? 'no app (no setup command)' : inert(preview.starts)}`);
  say(`  reads files:   ${list(preview.reads)}`);
  say(`  writes files:  ${list(preview.writes)}`);
  say(`  login needed:  ${yesNo(preview.requires_login)}`);
  say(`  side effects:  ${list(preview.side_effects)}`);
  say(`  stops before payment: ${yesNo(preview.stops_before_payment)}`);
  for (const note of preview.safety_notes) say(`  ${style.yellow('note')} ${inert(note)}`);
  for (const warning of preview.warnings) say(`  ${style.yellow('warning')} ${inert(warning)}`);
}

async function askYes(): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${style.cyan('?')} install it? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

interface InstallFlags extends HomeOptions {
  id?: string;
  sha256?: string;
  yes?: boolean;
  force?: boolean;
  json?: boolean;
}

async function runInstall(source: string, flags: InstallFlags): Promise<ExitCode> {
  if (!flags.yes && !process.stdin.isTTY) {
    throw new UsageError(
      'mime install shows what the package does and asks before installing it, but stdin is not a terminal: run it in a terminal, or pass --yes to install without asking (scripts)',
    );
  }
  const isCatalog = flags.id !== undefined;
  if (isCatalog && flags.sha256 !== undefined) {
    throw new UsageError(
      '--sha256 checks a zip given directly; a catalog item is checked against its catalog',
    );
  }
  const { installPackage } = await import('@mime-desktop/share');
  const result = await installPackage(
    isCatalog ? { catalog: source, id: flags.id ?? '' } : { archive: source, sha256: flags.sha256 },
    {
      home: resolveHome(flags),
      force: flags.force,
      confirm: async (preview) => {
        showPreview(preview);
        return flags.yes === true || askYes();
      },
    },
  );
  if (flags.json) printJson({ dir: result.dir, backup: result.backup, preview: result.preview });
  else printData(result.dir);
  say(`${mark.ok()} installed "${inert(result.preview.name)}" into ${result.dir}`);
  if (result.backup) say(style.dim(`  the workflow it replaced is kept in ${result.backup}`));
  say(style.dim(`  run it with: mime replay ${result.dir}`));
  return EXIT.ok;
}

const HOME_OPTION = ['--home <dir>', 'data root (default: $MIME_HOME, else the current directory)'] as const;

export function registerPack(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('pack')
    .summary('write a workflow as one zip to share')
    .description(
      "Write a workflow as <out>/<id>.zip: its schema.json, recording, frames and optimized_plan.json, with mime-package.json listing each file's size and sha256 and the workflow's safety facts; never its runs (.replay/), logs, locks, drafts or backups. The zip is added to <out>/manifest.json, a catalog in the shape of ai_mime's marketplace (package_url, sha256, size_bytes), which can be served as static files.",
    )
    .argument('<workflow>', 'workflow folder, its schema.json, or a session id under <home>/workflows/')
    .option(
      '--out <dir>',
      'folder for the zip and the catalog manifest.json (default: the current directory)',
    )
    .option('--id <id>', 'package id, the folder name once installed (default: the task name as a slug)')
    .option('--package-version <version>', 'the package version (default: 0.1.0)')
    .option('--author <name>', 'the author shown before install')
    .option('--tag <tag>', 'a tag (repeat for more)', collect)
    .option('--requires-login', 'a run needs the person to be logged in already')
    .option('--side-effect <text>', 'what a run changes (repeat for more)', collect)
    .option('--stops-before-payment', 'a run stops before paying')
    .option('--safety-note <text>', 'what to know before running it (repeat for more)', collect)
    .option(...HOME_OPTION)
    .option('--json', 'print the archive, the catalog and its item as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime pack workflows/play-song --out site/ --author me --side-effect "Plays music"\n\nExit codes: 0 packed, 2 an invalid workflow, a link in it or a bad id.',
    )
    .action((target: string, flags: PackFlags) => run(runPack(target, flags)));
}

export function registerInstall(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('install')
    .summary('install a shared workflow from a zip or a catalog')
    .description(
      'Install a workflow package: a zip (a path or an http(s) URL), or with --id the item of a catalog manifest.json (a path or an http(s) URL; its package_url is downloaded and checked against its sha256 and size_bytes). Every file is checked against the package manifest, the zip is unpacked into a quarantine folder (refused whole for a link, an absolute path, "..", run state, too many or too large files), validated, and shown: params, the app it starts, the files it reads and writes, whether it needs a login, its side effects, whether it stops before payment. It goes to <home>/workflows/<id> only after a yes. ai_mime marketplace zips install too.',
    )
    .argument('<source>', 'a zip, or a catalog manifest.json with --id (a path or an http(s) URL)')
    .option('--id <id>', 'the catalog item to install')
    .option('--sha256 <hex>', 'the sha256 the zip must have (for a zip given directly)')
    .option('--yes', 'install without asking (for scripts; the preview is still printed)')
    .option('--force', 'replace a workflow of the same id (it is kept as a backup)')
    .option(...HOME_OPTION)
    .option('--json', 'print the installed folder and the preview as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime install play-song.zip\n  mime install https://example.org/manifest.json --id play-song --yes\n\nExit codes: 0 installed, 2 refused (a changed or unsafe package, an invalid workflow, a name taken, no yes).',
    )
    .action((source: string, flags: InstallFlags) => run(runInstall(source, flags)));
}
