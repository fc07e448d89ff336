/**
 * `mime mcp install`: the change to a client's configuration that starts `mime mcp` over stdio. The
 * server is started by absolute paths (node and mime's entry), so a desktop app that does not get the
 * shell's PATH still finds it. The entry is merged into the one there (the user's `env`, timeouts and
 * other keys stay) and the file is edited in place, comments included; it is written atomically, after a
 * backup, and never through a link that leads out of the client's folder.
 */
import { constants } from 'node:fs';
import { copyFile, lstat, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import {
  backupStamp,
  isInsideFolder,
  isMissingFileError,
  readTextFile,
  writeFileAtomically,
} from '@mime-desktop/schema';
import { McpOptionError } from './errors.ts';
import { CLIENT_SPECS, type McpClient, type Place, type ServerCommand } from './install-clients.ts';
import { editJson, editToml, editYaml, entryText } from './install-edit.ts';

export { CLIENT_SPECS, CLIENTS, type McpClient, type Place, type ServerCommand } from './install-clients.ts';

export interface InstallPlan {
  client: McpClient;
  /** The configuration file changed; null when the client's file cannot be confirmed: print `entry`. */
  file: string | null;
  /** Where to paste the entry when `file` is null. */
  printHint?: string;
  /** Its content before (null: it does not exist yet) and after. */
  before: string | null;
  after: string;
  /** The entry added, as the file states it. */
  entry: string;
  /** The documentation page the file's place and shape come from. */
  docs: string;
}

/** This process's place: its HOME, environment and platform. */
export function currentPlace(): Place {
  return { home: process.env.HOME || homedir(), env: process.env, platform: process.platform };
}

/** Where the client keeps its user-level servers (null: not confirmed, the entry is printed). */
export function configFile(client: McpClient, place: Place = currentPlace()): string | null {
  return CLIENT_SPECS[client].file(place);
}

/** The entry for `client` alone, as its file states it. */
export function entryFor(client: McpClient, server: ServerCommand): string {
  const spec = CLIENT_SPECS[client];
  return entryText(spec.format, spec.servers, spec.entry(server));
}

/** The change `mime mcp install --client <client>` makes; nothing is written here. */
export async function planInstall(
  client: McpClient,
  server: ServerCommand,
  place: Place = currentPlace(),
): Promise<InstallPlan> {
  const spec = CLIENT_SPECS[client];
  const change = spec.entry(server);
  const entry = entryText(spec.format, spec.servers, change);
  const file = spec.file(place);
  if (file === null)
    return { client, file, printHint: spec.printHint, before: null, after: entry, entry, docs: spec.docs };
  // The client's own config, which may be a link into a dotfiles repo; a FIFO or a device is refused.
  const before = await readTextFile(file, { inside: false }).catch((error: unknown) => {
    if (isMissingFileError(error)) return null;
    throw new McpOptionError(`cannot read ${file}: ${(error as Error).message}`);
  });
  const after =
    spec.format === 'toml'
      ? editToml(before, spec.servers, change, file)
      : spec.format === 'yaml'
        ? editYaml(before, spec.servers, change, file)
        : editJson(before, spec.servers, change, file, spec.trailingCommas);
  return { client, file, before, after, entry, docs: spec.docs };
}

/**
 * The file the write goes to: the configuration file, or the file its link names when that stays inside
 * the configuration's folder (a dotfiles link elsewhere is refused: mime would write outside it).
 */
async function writeTarget(file: string): Promise<string> {
  const info = await lstat(file).catch(() => null);
  if (!info?.isSymbolicLink()) return file;
  const folder = await realpath(dirname(file));
  const target = await realpath(file).catch(() => null);
  const inside = target !== null && target !== folder && isInsideFolder(folder, target);
  if (!inside)
    throw new McpOptionError(
      `${file} is a link to ${target ?? 'a missing file'}, outside ${folder}: mime does not write through it; add the entry by hand (mime mcp install --client … --print shows it), or replace the link by a file`,
    );
  return target ?? file;
}

/** Writes a planned change: a backup of the file beside it, then the new content atomically. Returns the backup. */
export async function writeInstall(plan: InstallPlan): Promise<string | null> {
  if (plan.file === null)
    throw new McpOptionError(`${plan.client}'s configuration file is not known: paste the entry by hand`);
  const target = await writeTarget(plan.file);
  let mode = 0o600;
  let backup: string | null = null;
  if (plan.before !== null) {
    mode = (await stat(target)).mode & 0o777;
    backup = `${plan.file}.mime-backup-${backupStamp()}`;
    await copyFile(target, backup, constants.COPYFILE_EXCL);
  }
  await writeFileAtomically(target, plan.after, { mode });
  return backup;
}
