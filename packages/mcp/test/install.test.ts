/**
 * `mime mcp install` for the thirteen clients, in a temp HOME (XDG_CONFIG_HOME and APPDATA under it, so
 * no real configuration is touched): each file parses and has its client's documented shape, a second
 * install keeps the user's env and other keys, comments survive in JSONC, TOML and YAML, a malformed file
 * and a link out of the client's folder are refused with the file left as it was.
 */
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  CLIENT_SPECS,
  CLIENTS,
  type McpClient,
  type Place,
  planInstall,
  writeInstall,
} from '../src/install.ts';

const server = {
  command: '/usr/bin/node',
  args: ['/opt/mime/bin/mime.js', 'mcp', '--home', '/home/me/mime'],
};
const moved = { command: '/usr/local/bin/node', args: ['/srv/mime/mime.js', 'mcp', '--home', '/data/mime'] };

const testDir = useTestDir('mime-install-');
let home: string;
let place: Place;
beforeEach(() => {
  home = testDir();
  place = {
    home,
    env: { XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData', 'Roaming') },
    platform: 'linux',
  };
});

const fileOf = (client: McpClient) => {
  const file = CLIENT_SPECS[client].file(place);
  if (file === null) throw new Error(`${client} has no file`);
  return file;
};

/** The file as its client reads it. */
async function readConfig(client: McpClient): Promise<Record<string, any>> {
  const text = await readFile(fileOf(client), 'utf8');
  const format = CLIENT_SPECS[client].format;
  if (format === 'toml') return parseToml(text);
  if (format === 'yaml') return parseYaml(text);
  return CLIENT_SPECS[client].trailingCommas ? parseJsonc(text) : JSON.parse(text);
}

async function install(client: McpClient, command = server) {
  const plan = await planInstall(client, command, place);
  await writeInstall(plan);
  return plan;
}

/** The documented shape of each client's entry, and the path to it. */
const SHAPES: Record<Exclude<McpClient, 'antigravity'>, { at: string[]; entry: Record<string, unknown> }> = {
  'claude-code': { at: ['mcpServers', 'mime'], entry: { type: 'stdio', ...server, env: {} } },
  'claude-desktop': { at: ['mcpServers', 'mime'], entry: { ...server, env: {} } },
  cline: { at: ['mcpServers', 'mime'], entry: { ...server, env: {}, disabled: false, autoApprove: [] } },
  codex: { at: ['mcp_servers', 'mime'], entry: { ...server, tool_timeout_sec: 600 } },
  cursor: { at: ['mcpServers', 'mime'], entry: { ...server, env: {} } },
  gemini: { at: ['mcpServers', 'mime'], entry: { ...server, env: {} } },
  goose: {
    at: ['extensions', 'mime'],
    entry: {
      type: 'stdio',
      name: 'mime',
      cmd: server.command,
      args: server.args,
      enabled: true,
      bundled: false,
      description: 'Recorded desktop workflows, replayed by mime',
      envs: {},
      env_keys: [],
      timeout: 600,
    },
  },
  kiro: { at: ['mcpServers', 'mime'], entry: { ...server, env: {}, disabled: false } },
  opencode: {
    at: ['mcp', 'mime'],
    entry: { type: 'local', command: [server.command, ...server.args], enabled: true, environment: {} },
  },
  vscode: { at: ['servers', 'mime'], entry: { type: 'stdio', ...server, env: {} } },
  windsurf: { at: ['mcpServers', 'mime'], entry: { ...server, env: {} } },
  zed: { at: ['context_servers', 'mime'], entry: { ...server, env: {} } },
};
const WRITTEN = Object.keys(SHAPES) as Array<keyof typeof SHAPES>;
const at = (config: Record<string, any>, path: string[]) => path.reduce((node, key) => node?.[key], config);

/** Where the user's environment variables go in each client's entry. */
const ENV_KEY: Record<string, string> = { codex: 'env', goose: 'envs', opencode: 'environment' };

describe('mime mcp install', () => {
  it('covers the thirteen clients', () => {
    expect(CLIENTS).toHaveLength(13);
    expect([...WRITTEN, 'antigravity'].sort()).toEqual([...CLIENTS].sort());
  });

  it.each(WRITTEN)('writes the documented %s entry where the client reads it', async (client) => {
    const plan = await install(client);
    expect(plan.file).toBe(fileOf(client));
    expect(plan.file?.startsWith(home)).toBe(true);
    expect(at(await readConfig(client), SHAPES[client].at)).toEqual(SHAPES[client].entry);
    // Installed again unchanged: nothing to do.
    const again = await planInstall(client, server, place);
    expect(again.after).toBe(again.before);
  });

  it('puts each client in its documented place', () => {
    const where = Object.fromEntries(WRITTEN.map((client) => [client, fileOf(client).slice(home.length)]));
    expect(where).toEqual({
      'claude-code': '/.claude.json',
      'claude-desktop': '/.config/Claude/claude_desktop_config.json',
      cline: '/.cline/data/settings/cline_mcp_settings.json',
      codex: '/.codex/config.toml',
      cursor: '/.cursor/mcp.json',
      gemini: '/.gemini/settings.json',
      goose: '/.config/goose/config.yaml',
      kiro: '/.kiro/settings/mcp.json',
      opencode: '/.config/opencode/opencode.json',
      vscode: '/.config/Code/User/mcp.json',
      windsurf: '/.codeium/windsurf/mcp_config.json',
      zed: '/.config/zed/settings.json',
    });
    const mac = { ...place, platform: 'darwin' as const };
    expect(CLIENT_SPECS.vscode.file(mac)).toBe(join(home, 'Library/Application Support/Code/User/mcp.json'));
    const windows = { ...place, platform: 'win32' as const };
    expect(CLIENT_SPECS.goose.file(windows)).toBe(
      join(home, 'AppData/Roaming/Block/goose/config/config.yaml'),
    );
    expect(CLIENT_SPECS.zed.file(windows)).toBeNull();
  });

  it("edits OpenCode's opencode.jsonc when that is the file there", async () => {
    const jsonc = join(home, '.config', 'opencode', 'opencode.jsonc');
    await mkdir(dirname(jsonc), { recursive: true });
    await writeFile(jsonc, '{\n  // mine\n  "theme": "dark",\n}\n');
    expect(fileOf('opencode')).toBe(jsonc);
    await install('opencode');
    const text = await readFile(jsonc, 'utf8');
    expect(text).toContain('// mine');
    expect(parseJsonc(text, [], { allowTrailingComma: true }).mcp.mime.type).toBe('local');
  });

  it("prints Antigravity's entry when it has made no config file, and writes nothing", async () => {
    const plan = await planInstall('antigravity', server, place);
    expect(plan.file).toBeNull();
    expect(plan.printHint).toContain('View raw config');
    expect(JSON.parse(plan.entry)).toEqual({ mcpServers: { mime: { ...server, env: {} } } });
    await expect(writeInstall(plan)).rejects.toThrow(/paste the entry by hand/);
  });

  it.each([
    ['.gemini', 'antigravity', 'mcp_config.json'],
    ['.gemini', 'config', 'mcp_config.json'],
  ])(
    "merges into Antigravity's own file once it made one (~/%s/%s/%s), keeping its servers",
    async (...parts) => {
      const file = join(home, ...parts);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }));
      const plan = await planInstall('antigravity', server, place);
      expect(plan.file).toBe(file);
      await writeInstall(plan);
      const config = JSON.parse(await readFile(file, 'utf8'));
      expect(config.mcpServers.other).toEqual({ command: 'other-server' });
      expect(config.mcpServers.mime).toEqual({ ...server, env: {} });
    },
  );

  it.each(WRITTEN)(
    "a second %s install keeps the user's env and other keys, and moves the command",
    async (client) => {
      await install(client);
      const config = await readConfig(client);
      const entry = at(config, SHAPES[client].at);
      entry[ENV_KEY[client] ?? 'env'] = { MIME_PARAM_PASSWORD: 'from-the-user' };
      entry.note = 'mine';
      config.theme = 'dark';
      const format = CLIENT_SPECS[client].format;
      await writeFile(
        fileOf(client),
        format === 'toml'
          ? stringifyToml(config)
          : format === 'yaml'
            ? stringifyYaml(config)
            : JSON.stringify(config),
      );

      await install(client, moved);
      const after = await readConfig(client);
      const merged = at(after, SHAPES[client].at);
      expect(merged[ENV_KEY[client] ?? 'env']).toEqual({ MIME_PARAM_PASSWORD: 'from-the-user' });
      expect(merged.note).toBe('mine');
      expect(after.theme).toBe('dark');
      const command =
        client === 'goose' ? merged.cmd : client === 'opencode' ? merged.command[0] : merged.command;
      expect(command).toBe(moved.command);
    },
  );

  it("keeps a larger timeout the user chose and raises a smaller one (Codex's default 60 s cuts replays)", async () => {
    const codex = fileOf('codex');
    await mkdir(dirname(codex), { recursive: true });
    await writeFile(codex, '[mcp_servers.mime]\ncommand = "old"\ntool_timeout_sec = 1800\n');
    await install('codex');
    expect((await readConfig('codex')).mcp_servers.mime.tool_timeout_sec).toBe(1800);
    await writeFile(codex, '[mcp_servers.mime]\ncommand = "old"\ntool_timeout_sec = 60\n');
    await install('codex');
    expect((await readConfig('codex')).mcp_servers.mime.tool_timeout_sec).toBe(600);
  });

  it('keeps the comments of JSONC, TOML and YAML files', async () => {
    const gemini = fileOf('gemini');
    await mkdir(dirname(gemini), { recursive: true });
    await writeFile(gemini, '{\n  // my theme\n  "theme": "dark",\n  /* servers */\n  "mcpServers": {}\n}\n');
    await install('gemini');
    const geminiText = await readFile(gemini, 'utf8');
    expect(geminiText).toContain('// my theme');
    expect(geminiText).toContain('/* servers */');
    expect(parseJsonc(geminiText).mcpServers.mime.command).toBe(server.command);

    const vscode = fileOf('vscode');
    await mkdir(dirname(vscode), { recursive: true });
    await writeFile(
      vscode,
      '{\n\t// tools\n\t"servers": {\n\t\t"other": { "type": "stdio", "command": "x" },\n\t},\n}\n',
    );
    await install('vscode');
    const vscodeText = await readFile(vscode, 'utf8');
    expect(vscodeText).toContain('\t// tools\n');
    expect(Object.keys(parseJsonc(vscodeText, [], { allowTrailingComma: true }).servers)).toEqual([
      'other',
      'mime',
    ]);

    const codex = fileOf('codex');
    await mkdir(dirname(codex), { recursive: true });
    const toml =
      '# my settings\nmodel = "o3" # the model\n\n# mime, by hand\n[mcp_servers.mime]\ncommand = "old" # was here\nenv = { A = "1" }\n\n[profiles.fast]\nmodel = "o4"\n';
    await writeFile(codex, toml);
    await install('codex');
    expect(await readFile(codex, 'utf8')).toBe(
      toml
        .replace('command = "old" # was here', `command = "${server.command}" # was here`)
        .replace(
          'env = { A = "1" }\n',
          `env = { A = "1" }\nargs = [ ${server.args.map((a) => `"${a}"`).join(', ')} ]\ntool_timeout_sec = 600\n`,
        ),
    );

    // Codex's documented layout with the env as its own table, and servers as an inline table.
    const nested = '[mcp_servers.mime]\ncommand = "old"\n\n[mcp_servers.mime.env]\nA = "1" # keep\n';
    await writeFile(codex, nested);
    await install('codex');
    const nestedText = await readFile(codex, 'utf8');
    expect(nestedText).toContain('[mcp_servers.mime.env]\nA = "1" # keep\n');
    expect(parseToml(nestedText).mcp_servers).toEqual({
      mime: { command: server.command, args: server.args, tool_timeout_sec: 600, env: { A: '1' } },
    });
    await writeFile(codex, 'mcp_servers = { other = { command = "x" } } # inline\n');
    await install('codex');
    const inlineText = await readFile(codex, 'utf8');
    expect(inlineText).toContain('# inline');
    expect(Object.keys(parseToml(inlineText).mcp_servers as object)).toEqual(['other', 'mime']);

    const goose = fileOf('goose');
    await mkdir(dirname(goose), { recursive: true });
    await writeFile(
      goose,
      '# goose settings\nGOOSE_PROVIDER: anthropic # mine\nextensions:\n  developer:\n    enabled: true\n',
    );
    await install('goose');
    const gooseText = await readFile(goose, 'utf8');
    expect(gooseText).toMatch(/^# goose settings\nGOOSE_PROVIDER: anthropic # mine\n/);
    expect(Object.keys(parseYaml(gooseText).extensions)).toEqual(['developer', 'mime']);
  });

  it.each([
    [
      'gemini',
      '{ "theme": "dark", }',
      /settings\.json is not valid JSON \(property name expected at line 1, column 20\): fix it first/,
    ],
    ['zed', '{ "theme": ', /settings\.json is not valid JSON/],
    ['cursor', '[1, 2]', /mcp\.json does not hold a JSON object/],
    ['kiro', '{ "mcpServers": [] }', /has "mcpServers" that is not an object/],
    ['codex', 'model = "o3"\n[mcp_servers.mime\n', /config\.toml is not valid TOML/],
    ['goose', 'extensions:\n  - a\n  b: [\n', /config\.yaml is not valid YAML/],
  ] as const)('refuses a malformed %s file, leaving it as it is', async (client, text, message) => {
    const file = fileOf(client);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    const error = await planInstall(client, server, place).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MIME_MCP_OPTION', message: expect.stringMatching(message) });
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it("writes through a link inside the client's folder, and refuses one that leads out of it", async () => {
    const cursor = fileOf('cursor');
    await mkdir(dirname(cursor), { recursive: true });
    await writeFile(join(dirname(cursor), 'real.json'), '{}');
    await symlink('real.json', cursor);
    await install('cursor');
    expect((await lstat(cursor)).isSymbolicLink()).toBe(true);
    expect(
      JSON.parse(await readFile(join(dirname(cursor), 'real.json'), 'utf8')).mcpServers.mime.command,
    ).toBe(server.command);

    const kiro = fileOf('kiro');
    await mkdir(dirname(kiro), { recursive: true });
    const outside = join(home, 'dotfiles-kiro.json');
    await writeFile(outside, '{}');
    await symlink(outside, kiro);
    const plan = await planInstall('kiro', server, place);
    await expect(writeInstall(plan)).rejects.toMatchObject({
      code: 'MIME_MCP_OPTION',
      message: expect.stringContaining('outside'),
    });
    expect(await readFile(outside, 'utf8')).toBe('{}');
    expect(await readlink(kiro)).toBe(outside);
  });
});
