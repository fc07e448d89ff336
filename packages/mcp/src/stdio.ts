/** `mime mcp` over stdio: JSON-RPC on stdin and stdout (nothing else may write to stdout). */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MimeMcpServer } from './server.ts';

export async function serveStdio(mime: MimeMcpServer): Promise<void> {
  await mime.server.connect(new StdioServerTransport());
}
