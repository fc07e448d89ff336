/** `mime mcp`: the workflows under the data root as tools of an MCP server, over stdio or Streamable HTTP. */
import { realpathSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { keepFreedImagesOut } from '../malloc-tuning.ts';
import { positiveNumber } from '../numbers.ts';
import { printData, say, style } from '../output.ts';
import { MIME_VERSION } from '../program.ts';
import { onStopSignals } from '../stop-signals.ts';

interface McpFlags extends HomeOptions {
  http?: string | true;
  queue?: boolean;
  runSetup?: boolean;
  sessionIdle?: string;
}

/** The port of `--http [port]`: 0 (a free one) without a value. */
function portOf(value: string | true): number {
  if (value === true) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new UsageError(`--http takes a port from 0 to 65535, got "${value}"`);
  return port;
}

/** Resolves when the process is asked to stop (Ctrl+C, SIGTERM) or, on stdio, when stdin closes. */
function untilStopped(stdio: boolean): Promise<void> {
  return new Promise((resolve) => {
    onStopSignals(() => resolve());
    if (stdio) process.stdin.once('close', () => resolve());
  });
}

async function runMcpCommand(flags: McpFlags): Promise<ExitCode> {
  const { DesktopLock, MimeMcpServer, WorkflowCatalog, newToken, serveHttp, serveStdio } = await import(
    '@mime-desktop/mcp'
  );
  const { OcrEngine, useVisionProcess } = await import('@mime-desktop/replay');
  const port = flags.http === undefined ? null : portOf(flags.http);
  const idleSeconds = positiveNumber(flags.sessionIdle, '--session-idle', 7 * 24 * 3600, '600');
  if (idleSeconds !== undefined && port === null) throw new UsageError('--session-idle goes with --http');
  const catalog = new WorkflowCatalog({ home: resolveHome(flags) });
  await catalog.start();
  // A long-lived process: freed frames go back to the system, and OCR and template matching run in a
  // child process started at the first read, which exits after 30 s with nothing to do (their
  // WebAssembly heaps, ~260 MB, leave with it). One OCR engine for all the server's replays.
  const memory = await keepFreedImagesOut();
  const vision = useVisionProcess();
  const lock = new (class extends DesktopLock {
    override async run<T>(what: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      try {
        return await super.run(what, work, signal);
      } finally {
        memory?.trim();
      }
    }
  })({ queue: flags.queue === true });
  const ocr = new OcrEngine();
  const createServer = () =>
    new MimeMcpServer({
      catalog,
      version: MIME_VERSION,
      replay: { lock, queue: flags.queue === true, env: process.env, runSetup: flags.runSetup === true, ocr },
    });
  const tools = `${catalog.entries.length} workflow tool(s) from ${catalog.home}`;
  try {
    if (port === null) {
      const mime = createServer();
      await serveStdio(mime);
      say(style.dim(`mime mcp: ${tools}, on stdio`));
      await untilStopped(true);
      await mime.close();
      return EXIT.ok;
    }
    const token = process.env.MIME_MCP_TOKEN || newToken();
    const http = await serveHttp({
      port,
      token,
      createServer,
      sessionIdleMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    });
    say(`mime mcp: ${tools}, on ${http.url}`);
    say(
      process.env.MIME_MCP_TOKEN
        ? '  token: from MIME_MCP_TOKEN'
        : `  token: ${token}  (send "Authorization: Bearer <token>"; set MIME_MCP_TOKEN to choose it)`,
    );
    await untilStopped(false);
    await http.close();
    return EXIT.ok;
  } finally {
    catalog.stop();
    await ocr.close();
    await vision.close();
  }
}

interface InstallFlags extends HomeOptions {
  client?: string;
  yes?: boolean;
  print?: boolean;
}

/** `mime mcp --home <home>` by absolute paths: node and this CLI's entry (a GUI client may lack PATH). */
function serverCommand(flags: HomeOptions) {
  return {
    command: process.execPath,
    args: [realpathSync(process.argv[1] ?? ''), 'mcp', '--home', resolveHome(flags)],
  };
}

async function runInstallCommand(flags: InstallFlags): Promise<ExitCode> {
  const { CLIENT_SPECS, CLIENTS, entryFor, planInstall, writeInstall } = await import('@mime-desktop/mcp');
  const server = serverCommand(flags);
  const client = CLIENTS.find((c) => c === flags.client);
  if (flags.print && flags.client === undefined) {
    // Any other client: the `mcpServers` shape most of them share.
    printData(
      JSON.stringify(
        { mcpServers: { mime: { command: server.command, args: server.args, env: {} } } },
        null,
        2,
      ),
    );
    return EXIT.ok;
  }
  if (!client) {
    throw new UsageError(
      `--client takes one of ${CLIENTS.join(', ')}${flags.client ? `, not "${flags.client}"` : ''}; --print alone shows the mcpServers entry for any other client`,
    );
  }
  const label = CLIENT_SPECS[client].label;
  if (flags.print) {
    printData(entryFor(client, server));
    return EXIT.ok;
  }
  const plan = await planInstall(client, server);
  if (plan.file === null) {
    say(
      `${label}'s configuration file is not stated in its documentation (${plan.docs}) and none of the places it is known at exists yet: nothing written.`,
    );
    say(`  add this entry by hand${plan.printHint ? ` (${plan.printHint})` : ''}:`);
    printData(plan.entry);
    return EXIT.ok;
  }
  if (plan.before === plan.after) {
    say(`${style.green('✓')} ${plan.file} already starts mime mcp`);
    return EXIT.ok;
  }
  say(
    `${plan.before === null ? 'create' : 'change'} ${plan.file}: add the server "mime" (${label}; ${plan.docs})`,
  );
  printData(plan.entry);
  const note = CLIENT_SPECS[client].note;
  if (note) say(`  note: ${note}`);
  if (!flags.yes) {
    say(style.dim('  nothing written: run again with --yes to write it (the file is backed up first)'));
    return EXIT.ok;
  }
  const backup = await writeInstall(plan);
  if (backup) say(style.dim(`  backup: ${backup}`));
  say(
    `${style.green('✓')} written; restart ${label} to see the tools (sensitive params: set MIME_PARAM_<NAME> in the entry's environment)`,
  );
  return EXIT.ok;
}

export function registerMcp(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const command = program
    .command('mcp')
    .summary('serve the workflows as tools of an MCP server (stdio, or HTTP on 127.0.0.1)')
    .description(
      "Serve every workflow under the data root as a tool of a Model Context Protocol server, for coding and desktop agents: its params are the tool's `params` argument, each required unless optional or defaulted in the workflow (sensitive params never: they come from MIME_PARAM_<NAME> in this server's environment), a call replays it on this desktop (one at a time) with progress per step and returns the outcome, the extracts and the final screen. Generic tools: list_workflows, replay, get_run, validate. Over stdio by default; --http serves Streamable HTTP (2025-11-25: resumable streams, idle sessions expire) on 127.0.0.1 with a bearer token. The tool list follows workflows added, removed or healed on disk.",
    )
    .option('--home <dir>', 'data root holding workflows/ (default: $MIME_HOME, else the current directory)')
    .option(
      '--http [port]',
      'serve Streamable HTTP on 127.0.0.1 (a free port without a value) instead of stdio',
    )
    .option(
      '--queue',
      'a replay asked for while one runs on this display (from this server or any other process) waits its turn (default: a busy error)',
    )
    .option(
      '--session-idle <seconds>',
      'with --http: a session with no request open this long ends, and a request for it then gets 404 (default 1800: 30 minutes)',
    )
    .option('--run-setup', "let a replay run the workflow's setup command when its app window is not open")
    .addHelpText(
      'after',
      '\nExamples:\n  mime mcp --home ~/mime\n  MIME_MCP_TOKEN=$(openssl rand -hex 32) mime mcp --http 8765 --queue\n\nExit codes: 0 stopped (stdin closed, Ctrl+C, SIGTERM), 2 bad usage (a port in use).',
    )
    .action((flags: McpFlags) => run(runMcpCommand(flags)));
  command
    .command('install')
    .summary("add mime mcp to an agent's configuration")
    .description(
      "Add `mime mcp` (over stdio, for this data root) to a client's user configuration, in the client's documented format: claude-code (~/.claude.json), claude-desktop (claude_desktop_config.json), cline (~/.cline/data/settings/cline_mcp_settings.json), codex (~/.codex/config.toml, with tool_timeout_sec 600), cursor (~/.cursor/mcp.json), gemini (~/.gemini/settings.json), goose (~/.config/goose/config.yaml), kiro (~/.kiro/settings/mcp.json), opencode (~/.config/opencode/opencode.json), vscode (Code/User/mcp.json), windsurf (~/.codeium/windsurf/mcp_config.json), zed (~/.config/zed/settings.json); antigravity's file is not documented: its entry is printed to paste. An entry already there is merged (your env, timeouts and other keys stay) and comments stay. Shows the change; writes it only with --yes, after a backup of the file. --print shows the entry (with --client, in that client's format) and changes nothing.",
    )
    .option(
      '--client <name>',
      'antigravity, claude-code, claude-desktop, cline, codex, cursor, gemini, goose, kiro, opencode, vscode, windsurf or zed',
    )
    .option('--yes', 'write the change (a backup of the file is kept beside it)')
    .option(
      '--print',
      "print the entry (the client's own shape with --client, else mcpServers JSON) and change nothing",
    )
    .option(
      '--home <dir>',
      'data root whose workflows the server serves (default: $MIME_HOME, else the current directory)',
    )
    .addHelpText(
      'after',
      "\nExamples:\n  mime mcp install --client claude-desktop --home ~/mime\n  mime mcp install --client codex --home ~/mime --yes\n  mime mcp install --client vscode --print\n  mime mcp install --print\n\nExit codes: 0 shown or written, 2 an unknown client, a configuration file that does not parse, or a link out of the client's folder.",
    )
    // --home is also an option of `mcp`, which takes it when given after `install`.
    .action((_flags: InstallFlags, cmd: Command) =>
      run(runInstallCommand(cmd.optsWithGlobals<InstallFlags>())),
    );
}
