/** Errors of the MCP server, with the stable codes a tool error names. */
import { MimeError } from '@mime-desktop/schema';

/** The desktop runs one replay at a time. */
export class DesktopBusyError extends MimeError {
  constructor(running: string) {
    super(
      'MIME_DESKTOP_BUSY',
      `the desktop is busy: ${running} is replaying, and one replay runs at a time; call again when it ends, or start the server with --queue to wait`,
    );
  }
}

/** A workflow or run the server does not know. */
export class NotFoundError extends MimeError {
  constructor(what: string, name: string, known: readonly string[]) {
    super(
      'MIME_NOT_FOUND',
      `no ${what} ${JSON.stringify(name)} under the data root${known.length > 0 ? `; known: ${known.slice(0, 20).join(', ')}` : ''}`,
      { exit: 'usage' },
    );
  }
}

/** A bad option of the server (port, token, client). */
export class McpOptionError extends MimeError {
  constructor(message: string) {
    super('MIME_MCP_OPTION', message, { exit: 'usage' });
  }
}

/** A sensitive param given as a tool argument: it comes from the server's environment only. */
export class SecretArgumentError extends MimeError {
  constructor(param: string, env: string) {
    super(
      'MIME_SECRET_ARGUMENT',
      `${param} is a sensitive param: it is never a tool argument (it would pass through the client and its logs); set ${env} in the environment of the MCP server`,
      { exit: 'usage' },
    );
  }
}
