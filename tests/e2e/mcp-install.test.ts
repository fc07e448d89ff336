/**
 * `mime mcp install`: shows the change to a client's configuration, writes it only with --yes after a
 * backup, keeps what the file held, refuses a file that does not parse, and the entry it writes starts
 * a working server (the SDK's client lists the workflow's tool through it).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { MIME_BIN, runMime } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeEach, describe, expect, it } from 'vitest';

const fileTempDir = useTempDirs();

let user: string;
let home: string;
// A temp HOME, with every folder a client's place may come from under it: nothing real is touched.
const install = (...args: string[]) =>
  runMime(['mcp', 'install', '--home', home, ...args], {
    env: {
      HOME: user,
      XDG_CONFIG_HOME: join(user, '.config'),
      APPDATA: join(user, 'AppData'),
      CODEX_HOME: undefined,
      CLINE_DIR: undefined,
    },
  });

beforeEach(async () => {
  user = await fileTempDir('mime-user-');
  home = await fileTempDir('mime-home-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
});

describe('mime mcp install', () => {
  it('shows the change, writes it with --yes after a backup, keeps the other servers, and the entry works', async () => {
    const file = join(user, '.cursor', 'mcp.json');
    await mkdir(join(user, '.cursor'));
    const original = `${JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }, null, 2)}\n`;
    await writeFile(file, original);

    const shown = await install('--client', 'cursor');
    expect(shown.exitCode).toBe(0);
    expect(shown.stderr).toContain(`change ${file}: add the server "mime"`);
    expect(shown.stderr).toContain('nothing written: run again with --yes');
    expect(await readFile(file, 'utf8')).toBe(original);

    const written = await install('--client', 'cursor', '--yes');
    expect(written.exitCode, written.stderr).toBe(0);
    const config = JSON.parse(await readFile(file, 'utf8'));
    expect(config.mcpServers.other).toEqual({ command: 'other-server' });
    expect(config.mcpServers.mime).toEqual({
      command: process.execPath,
      args: [MIME_BIN, 'mcp', '--home', home],
      env: {},
    });
    const [backup] = (await readdir(join(user, '.cursor'))).filter((f) =>
      f.startsWith('mcp.json.mime-backup-'),
    );
    expect(await readFile(join(user, '.cursor', String(backup)), 'utf8')).toBe(original);
    expect((await install('--client', 'cursor')).stderr).toContain('already starts mime mcp');

    // The entry as the client would start it: a server whose tools the SDK's client lists.
    const client = new Client({ name: 'cursor-like', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: config.mcpServers.mime.command,
        args: config.mcpServers.mime.args,
        env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('play_song');
    } finally {
      await client.close();
    }
  });

  it("appends a table to Codex's TOML with a replay-long timeout, keeping its comments; Claude Code's entry names its transport", async () => {
    const codex = join(user, '.codex', 'config.toml');
    await mkdir(join(user, '.codex'));
    await writeFile(codex, '# my settings\nmodel = "o3"\n');
    expect((await install('--client', 'codex', '--yes')).exitCode).toBe(0);
    expect(await readFile(codex, 'utf8')).toBe(
      `# my settings\nmodel = "o3"\n\n[mcp_servers.mime]\ncommand = "${process.execPath}"\nargs = [ "${MIME_BIN}", "mcp", "--home", "${home}" ]\ntool_timeout_sec = 600\n`,
    );
    expect((await install('--client', 'claude-code', '--yes')).exitCode).toBe(0);
    const claude = JSON.parse(await readFile(join(user, '.claude.json'), 'utf8'));
    expect(claude.mcpServers.mime).toMatchObject({ type: 'stdio', command: process.execPath });
  });

  it('refuses an unknown client and a file that does not parse, changing nothing (exit 2)', async () => {
    const unknown = await install('--client', 'notepad');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(
      '--client takes one of antigravity, claude-code, claude-desktop, cline, codex, cursor, gemini, goose, kiro, opencode, vscode, windsurf, zed, not "notepad"',
    );
    const file = join(user, '.gemini', 'settings.json');
    await mkdir(join(user, '.gemini'));
    await writeFile(file, '{ "theme": "dark", }');
    const broken = await install('--client', 'gemini', '--yes');
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(
      /settings\.json is not valid JSON .*: fix it first, mime leaves it as it is/,
    );
    expect(await readFile(file, 'utf8')).toBe('{ "theme": "dark", }');
    const printed = await install('--print');
    expect(JSON.parse(printed.stdout)).toMatchObject({
      mcpServers: { mime: { args: [expect.any(String), 'mcp', '--home', home] } },
    });
  });

  it("writes VS Code's `servers` entry, keeps the user's env on a second install, and prints Antigravity's", async () => {
    const file = join(user, '.config', 'Code', 'User', 'mcp.json');
    const first = await install('--client', 'vscode', '--yes');
    expect(first.exitCode, first.stderr).toBe(0);
    const config = JSON.parse(await readFile(file, 'utf8'));
    expect(config.servers.mime).toMatchObject({ type: 'stdio', command: process.execPath, env: {} });
    config.servers.mime.env = { MIME_PARAM_PASSWORD: 'mine' };
    await writeFile(file, `// my servers\n${JSON.stringify(config, null, 2)}\n`);
    const other = await fileTempDir('mime-home-');
    const second = await runMime(['mcp', 'install', '--home', other, '--client', 'vscode', '--yes'], {
      env: { HOME: user, XDG_CONFIG_HOME: join(user, '.config') },
    });
    expect(second.exitCode, second.stderr).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('// my servers\n')).toBe(true);
    const mime = JSON.parse(text.replace('// my servers\n', '')).servers.mime;
    expect(mime.env).toEqual({ MIME_PARAM_PASSWORD: 'mine' });
    expect(mime.args.at(-1)).toBe(other);

    const antigravity = await install('--client', 'antigravity', '--yes');
    expect(antigravity.exitCode).toBe(0);
    expect(antigravity.stderr).toContain('not stated in its documentation');
    expect(JSON.parse(antigravity.stdout).mcpServers.mime.args).toEqual([
      expect.any(String),
      'mcp',
      '--home',
      home,
    ]);
    const cline = await install('--client', 'cline', '--yes');
    expect(cline.exitCode, cline.stderr).toBe(0);
    expect(cline.stderr).toContain('Configure MCP Servers');
    expect(
      JSON.parse(await readFile(join(user, '.cline', 'data', 'settings', 'cline_mcp_settings.json'), 'utf8'))
        .mcpServers.mime,
    ).toMatchObject({ command: process.execPath, disabled: false, autoApprove: [] });
    const printed = await install('--client', 'goose', '--print');
    expect(printed.stdout).toMatch(/^extensions:\n {2}mime:\n {4}type: stdio\n/);
  });
});
