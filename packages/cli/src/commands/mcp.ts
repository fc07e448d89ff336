/** `mime mcp`: the workflows under the data root as tools of an MCP server, over stdio or Streamable HTTP. */
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { say, style } from '../output.ts';
import { MIME_VERSION } from '../program.ts';

interface McpFlags extends HomeOptions {
  http?: string | true;
  queue?: boolean;
  runSetup?: boolean;
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
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    if (stdio) process.stdin.once('close', () => resolve());
  });
}

async function runMcpCommand(flags: McpFlags): Promise<ExitCode> {
  const { DesktopLock, MimeMcpServer, WorkflowCatalog, newToken, serveHttp, serveStdio } = await import(
    '@mime-desktop/mcp'
  );
  const port = flags.http === undefined ? null : portOf(flags.http);
  const catalog = new WorkflowCatalog({ home: resolveHome(flags) });
  await catalog.start();
  const lock = new DesktopLock({ queue: flags.queue === true });
  const createServer = () =>
    new MimeMcpServer({
      catalog,
      version: MIME_VERSION,
      replay: { lock, env: process.env, runSetup: flags.runSetup === true },
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
    const http = await serveHttp({ port, token, createServer });
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
  }
}

export function registerMcp(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('mcp')
    .summary('serve the workflows as tools of an MCP server (stdio, or HTTP on 127.0.0.1)')
    .description(
      "Serve every workflow under the data root as a tool of a Model Context Protocol server, for coding and desktop agents: its params are the tool's arguments (sensitive params never: they come from MIME_PARAM_<NAME> in this server's environment), a call replays it on this desktop (one at a time) with progress per step and returns the outcome, the extracts and the final screen. Generic tools: list_workflows, replay, get_run, validate. Over stdio by default; --http serves Streamable HTTP on 127.0.0.1 with a bearer token. The tool list follows workflows added, removed or healed on disk.",
    )
    .option('--home <dir>', 'data root holding workflows/ (default: $MIME_HOME, else the current directory)')
    .option(
      '--http [port]',
      'serve Streamable HTTP on 127.0.0.1 (a free port without a value) instead of stdio',
    )
    .option('--queue', 'a replay asked for while one runs waits its turn (default: a busy error)')
    .option('--run-setup', "let a replay run the workflow's setup command when its app window is not open")
    .addHelpText(
      'after',
      '\nExamples:\n  mime mcp --home ~/mime\n  MIME_MCP_TOKEN=$(openssl rand -hex 32) mime mcp --http 8765 --queue\n\nExit codes: 0 stopped (stdin closed, Ctrl+C, SIGTERM), 2 bad usage (a port in use).',
    )
    .action((flags: McpFlags) => run(runMcpCommand(flags)));
}
