/**
 * The thirteen clients `mime mcp install` knows: where each keeps its user-level servers, in which format,
 * and the entry that starts `mime mcp` over stdio, each as the client's own documentation states it
 * (the page is cited beside each one). A client whose file cannot be confirmed from its documentation
 * (on this platform) has no file: its entry is printed to paste, never written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const CLIENTS = [
  'antigravity',
  'claude-code',
  'claude-desktop',
  'cline',
  'codex',
  'cursor',
  'gemini',
  'goose',
  'kiro',
  'opencode',
  'vscode',
  'windsurf',
  'zed',
] as const;
export type McpClient = (typeof CLIENTS)[number];

/** How the client starts the server. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** Where the configuration lives: the user's home, environment and platform (tests give a temp HOME). */
export interface Place {
  home: string;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
}

/**
 * The entry, as changes to an existing one: `set` keys are mime's own and replace what is there; `defaults`
 * are written only where the key is missing (the user's `env` stays); `atLeast` numbers are raised to this
 * value, a larger one the user chose stays.
 */
export interface EntryChange {
  set: Record<string, unknown>;
  defaults: Record<string, unknown>;
  atLeast: Record<string, number>;
}

export interface ClientSpec {
  /** The name shown to the user. */
  label: string;
  /** The documentation page the location and shape come from. */
  docs: string;
  format: 'json' | 'toml' | 'yaml';
  /** JSON files the client reads as JSONC with trailing commas (VS Code, Zed, OpenCode). */
  trailingCommas?: boolean;
  /** The file, or null when it cannot be confirmed: the entry is printed with `printHint`. */
  file(place: Place): string | null;
  /** Where to paste a printed entry. */
  printHint?: string;
  /** What the user should know once the file is written. */
  note?: string;
  /** The key path of the servers' map in the file. */
  servers: string[];
  entry(server: ServerCommand): EntryChange;
}

/**
 * The longest replay a client should wait for, in seconds. A replay is bounded by its own step timeouts; a
 * long workflow (dozens of steps, each waiting up to 30 s for its screen) runs minutes, and Codex's default
 * 60 s cuts it off. 10 minutes is generous; a larger value the user set stays.
 */
export const REPLAY_TIMEOUT_SEC = 600;

const configHome = (place: Place) => place.env.XDG_CONFIG_HOME || join(place.home, '.config');
const appData = (place: Place) => place.env.APPDATA || join(place.home, 'AppData', 'Roaming');

/** `command` + `args` + `env` under `mcpServers`: the shape Claude Desktop started and most clients share. */
const mcpServersEntry = (server: ServerCommand): EntryChange => ({
  set: { command: server.command, args: server.args },
  defaults: { env: {} },
  atLeast: {},
});

export const CLIENT_SPECS: Record<McpClient, ClientSpec> = {
  // https://antigravity.google/docs/mcp: servers are added in the app (Agent panel > MCP Servers > Manage MCP
  // Servers > View raw config, which opens the file); that page does not state the file's place. Google's own
  // https://github.com/ChromeDevTools/chrome-devtools-mcp README (Antigravity section) names
  // ~/.gemini/antigravity/mcp_config.json, and Antigravity 2.0 users report ~/.gemini/config/mcp_config.json.
  // So the entry is written only into such a file that Antigravity already made (evidence it reads it there);
  // with none, it is printed to paste.
  antigravity: {
    label: 'Antigravity',
    docs: 'https://antigravity.google/docs/mcp',
    format: 'json',
    file: (place) =>
      [
        join(place.home, '.gemini', 'antigravity', 'mcp_config.json'),
        join(place.home, '.gemini', 'config', 'mcp_config.json'),
      ].find((file) => existsSync(file)) ?? null,
    printHint:
      'Agent panel > … > MCP Servers > Manage MCP Servers > View raw config, then paste it under "mcpServers"',
    servers: ['mcpServers'],
    entry: mcpServersEntry,
  },
  // https://code.claude.com/docs/en/mcp: user-scope servers live in ~/.claude.json under `mcpServers`,
  // a stdio one with "type": "stdio".
  'claude-code': {
    label: 'Claude Code',
    docs: 'https://code.claude.com/docs/en/mcp',
    format: 'json',
    file: (place) => join(place.home, '.claude.json'),
    servers: ['mcpServers'],
    entry: (server) => ({
      ...mcpServersEntry(server),
      set: { type: 'stdio', ...mcpServersEntry(server).set },
    }),
  },
  // https://modelcontextprotocol.io/docs/develop/connect-local-servers: claude_desktop_config.json in the
  // app's folder (macOS Application Support, Windows %APPDATA%), `mcpServers`.
  'claude-desktop': {
    label: 'Claude Desktop',
    docs: 'https://modelcontextprotocol.io/docs/develop/connect-local-servers',
    format: 'json',
    file: (place) => {
      if (place.platform === 'darwin')
        return join(place.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (place.platform === 'win32') return join(appData(place), 'Claude', 'claude_desktop_config.json');
      return join(configHome(place), 'Claude', 'claude_desktop_config.json');
    },
    servers: ['mcpServers'],
    entry: mcpServersEntry,
  },
  // https://docs.cline.bot/cline-cli/configuration: ~/.cline/data/settings/cline_mcp_settings.json (CLINE_DIR
  // replaces ~/.cline/data); https://docs.cline.bot/mcp/configuring-mcp-servers: the stdio entry with
  // `disabled` and `autoApprove`. The VS Code extension opens its own copy from "Configure MCP Servers".
  cline: {
    label: 'Cline',
    docs: 'https://docs.cline.bot/mcp/configuring-mcp-servers',
    format: 'json',
    note: "this is the file of the Cline CLI; the VS Code extension's own file is not documented: paste the entry (mime mcp install --client cline --print) through its MCP Servers > Configure MCP Servers",
    file: (place) =>
      join(place.env.CLINE_DIR || join(place.home, '.cline', 'data'), 'settings', 'cline_mcp_settings.json'),
    servers: ['mcpServers'],
    entry: (server) => ({
      ...mcpServersEntry(server),
      defaults: { env: {}, disabled: false, autoApprove: [] },
    }),
  },
  // https://developers.openai.com/codex/mcp: ~/.codex/config.toml (CODEX_HOME), a [mcp_servers.<name>]
  // table with command, args, env and tool_timeout_sec (default 60).
  codex: {
    label: 'Codex',
    docs: 'https://developers.openai.com/codex/mcp',
    format: 'toml',
    file: (place) => join(place.env.CODEX_HOME || join(place.home, '.codex'), 'config.toml'),
    servers: ['mcp_servers'],
    entry: (server) => ({
      set: { command: server.command, args: server.args },
      defaults: {},
      atLeast: { tool_timeout_sec: REPLAY_TIMEOUT_SEC },
    }),
  },
  // https://cursor.com/docs/mcp: the global ~/.cursor/mcp.json, `mcpServers`.
  cursor: {
    label: 'Cursor',
    docs: 'https://cursor.com/docs/mcp',
    format: 'json',
    file: (place) => join(place.home, '.cursor', 'mcp.json'),
    servers: ['mcpServers'],
    entry: mcpServersEntry,
  },
  // https://geminicli.com/docs/tools/mcp-server/: ~/.gemini/settings.json (comments allowed), `mcpServers`.
  gemini: {
    label: 'Gemini CLI',
    docs: 'https://geminicli.com/docs/tools/mcp-server/',
    format: 'json',
    file: (place) => join(place.home, '.gemini', 'settings.json'),
    servers: ['mcpServers'],
    entry: mcpServersEntry,
  },
  // https://block.github.io/goose/docs/guides/config-files: ~/.config/goose/config.yaml (Windows
  // %APPDATA%\Block\goose\config\config.yaml), `extensions.<name>` with type stdio, cmd, args, envs,
  // enabled and timeout in seconds.
  goose: {
    label: 'Goose',
    docs: 'https://block.github.io/goose/docs/guides/config-files',
    format: 'yaml',
    file: (place) =>
      place.platform === 'win32'
        ? join(appData(place), 'Block', 'goose', 'config', 'config.yaml')
        : join(configHome(place), 'goose', 'config.yaml'),
    servers: ['extensions'],
    entry: (server) => ({
      set: { type: 'stdio', name: 'mime', cmd: server.command, args: server.args },
      defaults: {
        enabled: true,
        bundled: false,
        description: 'Recorded desktop workflows, replayed by mime',
        envs: {},
        env_keys: [],
      },
      atLeast: { timeout: REPLAY_TIMEOUT_SEC },
    }),
  },
  // https://kiro.dev/docs/mcp/configuration: the user level ~/.kiro/settings/mcp.json, `mcpServers`.
  kiro: {
    label: 'Kiro',
    docs: 'https://kiro.dev/docs/mcp/configuration',
    format: 'json',
    file: (place) => join(place.home, '.kiro', 'settings', 'mcp.json'),
    servers: ['mcpServers'],
    entry: (server) => ({ ...mcpServersEntry(server), defaults: { env: {}, disabled: false } }),
  },
  // https://opencode.ai/docs/mcp-servers and https://opencode.ai/docs/config: the global
  // ~/.config/opencode/opencode.json, or opencode.jsonc when that is the one there (both JSONC),
  // `mcp.<name>` with type "local", the command as one array, `enabled` and `environment`.
  opencode: {
    label: 'OpenCode',
    docs: 'https://opencode.ai/docs/mcp-servers',
    format: 'json',
    trailingCommas: true,
    file: (place) => {
      const json = join(configHome(place), 'opencode', 'opencode.json');
      const jsonc = `${json}c`;
      return !existsSync(json) && existsSync(jsonc) ? jsonc : json;
    },
    servers: ['mcp'],
    entry: (server) => ({
      set: { type: 'local', command: [server.command, ...server.args] },
      defaults: { enabled: true, environment: {} },
      atLeast: {},
    }),
  },
  // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: mcp.json in the user profile
  // (https://code.visualstudio.com/docs/configure/settings#_settings-file-locations: Code/User under
  // ~/.config, ~/Library/Application Support or %APPDATA%), `servers` with "type": "stdio".
  vscode: {
    label: 'VS Code',
    docs: 'https://code.visualstudio.com/docs/copilot/reference/mcp-configuration',
    format: 'json',
    trailingCommas: true,
    file: (place) => {
      if (place.platform === 'darwin')
        return join(place.home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json');
      if (place.platform === 'win32') return join(appData(place), 'Code', 'User', 'mcp.json');
      return join(configHome(place), 'Code', 'User', 'mcp.json');
    },
    servers: ['servers'],
    entry: (server) => ({
      ...mcpServersEntry(server),
      set: { type: 'stdio', ...mcpServersEntry(server).set },
    }),
  },
  // https://docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json, `mcpServers`.
  windsurf: {
    label: 'Windsurf',
    docs: 'https://docs.windsurf.com/windsurf/cascade/mcp',
    format: 'json',
    file: (place) => join(place.home, '.codeium', 'windsurf', 'mcp_config.json'),
    servers: ['mcpServers'],
    entry: mcpServersEntry,
  },
  // https://zed.dev/docs/ai/mcp: `context_servers.<name>` with command, args, env;
  // https://zed.dev/docs/configuring-zed: ~/.config/zed/settings.json ($XDG_CONFIG_HOME on Linux). The
  // Windows place is not stated there: printed on Windows.
  zed: {
    label: 'Zed',
    docs: 'https://zed.dev/docs/ai/mcp',
    format: 'json',
    trailingCommas: true,
    file: (place) => {
      if (place.platform === 'win32') return null;
      if (place.platform === 'linux') return join(configHome(place), 'zed', 'settings.json');
      return join(place.home, '.config', 'zed', 'settings.json');
    },
    printHint: 'zed: open settings file, then paste it under "context_servers"',
    servers: ['context_servers'],
    entry: mcpServersEntry,
  },
};
