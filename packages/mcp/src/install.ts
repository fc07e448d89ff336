/**
 * `mime mcp install`: the change to a client's configuration that starts `mime mcp` over stdio. The
 * server is started by absolute paths (node and mime's entry), so a desktop app that does not get the
 * shell's PATH still finds it. JSON clients get an `mcpServers.mime` entry; Codex a
 * `[mcp_servers.mime]` table in its TOML.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isMissingFileError, readTextFile } from '@mime-desktop/schema';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { McpOptionError } from './errors.ts';

export const CLIENTS = ['claude-code', 'claude-desktop', 'codex', 'cursor', 'gemini'] as const;
export type McpClient = (typeof CLIENTS)[number];

/** How the client starts the server. */
export interface ServerCommand {
  command: string;
  args: string[];
}

export interface InstallPlan {
  client: McpClient;
  /** The configuration file changed. */
  file: string;
  /** Its content before (null: it does not exist yet) and after. */
  before: string | null;
  after: string;
  /** The entry added, as the file states it. */
  entry: string;
}

/** Where each client keeps the servers of its user (the platform's own folders for Claude Desktop). */
export function configFile(client: McpClient, home = homedir(), platform = process.platform): string {
  switch (client) {
    case 'claude-code':
      return join(home, '.claude.json');
    case 'claude-desktop':
      if (platform === 'darwin')
        return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32')
        return join(
          process.env.APPDATA ?? join(home, 'AppData', 'Roaming'),
          'Claude',
          'claude_desktop_config.json',
        );
      return join(
        process.env.XDG_CONFIG_HOME ?? join(home, '.config'),
        'Claude',
        'claude_desktop_config.json',
      );
    case 'codex':
      return join(process.env.CODEX_HOME ?? join(home, '.codex'), 'config.toml');
    case 'cursor':
      return join(home, '.cursor', 'mcp.json');
    case 'gemini':
      return join(home, '.gemini', 'settings.json');
  }
}

/** The `mcpServers` entry every JSON client reads (Claude Code also wants the transport named). */
export function jsonEntry(client: McpClient | null, server: ServerCommand): Record<string, unknown> {
  return {
    ...(client === 'claude-code' ? { type: 'stdio' } : {}),
    command: server.command,
    args: server.args,
    env: {},
  };
}

function planJson(client: McpClient, before: string | null, server: ServerCommand, file: string) {
  let config: Record<string, unknown> = {};
  if (before !== null && before.trim() !== '') {
    try {
      config = JSON.parse(before) as Record<string, unknown>;
    } catch (error) {
      throw new McpOptionError(
        `${file} is not valid JSON (${(error as Error).message}): fix it first, mime leaves it as it is`,
      );
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new McpOptionError(`${file} does not hold a JSON object: fix it first, mime leaves it as it is`);
    }
  }
  const servers = (config.mcpServers ?? {}) as Record<string, unknown>;
  const entry = jsonEntry(client, server);
  const after = { ...config, mcpServers: { ...servers, mime: entry } };
  return { after: `${JSON.stringify(after, null, 2)}\n`, entry: JSON.stringify({ mime: entry }, null, 2) };
}

function planToml(before: string | null, server: ServerCommand, file: string) {
  const table = { command: server.command, args: server.args };
  const block = stringifyToml({ mcp_servers: { mime: table } });
  if (before === null || before.trim() === '') return { after: block, entry: block };
  let config: Record<string, unknown>;
  try {
    config = parseToml(before) as Record<string, unknown>;
  } catch (error) {
    throw new McpOptionError(
      `${file} is not valid TOML (${(error as Error).message}): fix it first, mime leaves it as it is`,
    );
  }
  const servers = (config.mcp_servers ?? {}) as Record<string, unknown>;
  // Appended as a table when new, so the file's comments and layout stay; rewritten when it replaces one.
  const after =
    servers.mime === undefined
      ? `${before.replace(/\n*$/, '\n')}\n${block}`
      : stringifyToml({ ...config, mcp_servers: { ...servers, mime: table } });
  return { after: after.endsWith('\n') ? after : `${after}\n`, entry: block };
}

/** The change `mime mcp install --client <client>` makes; nothing is written here. */
export async function planInstall(
  client: McpClient,
  server: ServerCommand,
  home = homedir(),
): Promise<InstallPlan> {
  const file = configFile(client, home);
  // The client's own config, which may be a link into a dotfiles repo; a FIFO or a device is refused.
  const before = await readTextFile(file, { inside: false }).catch((error: unknown) => {
    if (isMissingFileError(error)) return null;
    throw new McpOptionError(`cannot read ${file}: ${(error as Error).message}`);
  });
  const planned =
    client === 'codex' ? planToml(before, server, file) : planJson(client, before, server, file);
  return { client, file, before, ...planned };
}
