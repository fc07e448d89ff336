import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { MimeError, zodProblems } from '@mime-desktop/schema';
import { z } from 'zod';

/**
 * The local control channel of a running recorder: scripts and tests annotate or stop it with the
 * same commands a person gives through the hotkeys. One JSON line in, one JSON line out, over a unix
 * socket in a private (0700) folder, or a named pipe on Windows.
 */

export const ControlRequest = z.discriminatedUnion('type', [
  z.object({ type: z.literal('extract'), query: z.string().min(1), values: z.array(z.string()).default([]) }),
  z.object({ type: z.literal('details'), text: z.string().min(1) }),
  z.object({ type: z.literal('secret'), on: z.boolean() }),
  z.object({ type: z.literal('stop') }),
  z.object({ type: z.literal('status') }),
]);
export type ControlRequest = z.infer<typeof ControlRequest>;

export interface ControlStatus {
  session_id: string;
  events: number;
  secret: boolean;
  paused: boolean;
}

export type ControlReply = { ok: true; status: ControlStatus } | { ok: false; error: string };

/** No recorder answers for that session. */
export class RecorderNotRunningError extends MimeError {
  constructor(sessionId: string, options?: { cause?: unknown }) {
    super(
      'MIME_RECORDER_NOT_RUNNING',
      `no recording ${sessionId} is running; check the session id (\`mime list\`) or start one with \`mime record\``,
      options,
    );
  }
}

/** The recorder refused a control request (bad arguments). */
export class ControlRequestError extends MimeError {
  constructor(message: string) {
    super('MIME_USAGE', message, { exit: 'usage' });
  }
}

/** Where the recorder of a session listens. */
export function controlAddress(sessionId: string): string {
  if (process.platform === 'win32') return `\\\\.\\pipe\\mime-record-${sessionId}`;
  return join(tmpdir(), `mime-${userInfo().uid}`, `${sessionId}.sock`);
}

/** Starts the control server; `handle` answers each request (its errors become `{ok:false}` replies). */
export async function startControlServer(
  sessionId: string,
  handle: (request: ControlRequest) => Promise<ControlStatus>,
): Promise<{ address: string; close(): Promise<void> }> {
  const address = controlAddress(sessionId);
  if (process.platform !== 'win32') {
    mkdirSync(join(address, '..'), { recursive: true, mode: 0o700 });
    await rm(address, { force: true });
  }
  const server: Server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      void answer(line).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
  });
  const answer = async (line: string): Promise<ControlReply> => {
    let parsed: ReturnType<typeof ControlRequest.safeParse>;
    try {
      parsed = ControlRequest.safeParse(JSON.parse(line));
    } catch {
      return { ok: false, error: 'the request is not JSON' };
    }
    if (!parsed.success) {
      return {
        ok: false,
        error: zodProblems(parsed.error)
          .map((p) => `${p.path}: ${p.message}`)
          .join('; '),
      };
    }
    try {
      return { ok: true, status: await handle(parsed.data) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => resolve());
  });
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (process.platform !== 'win32') void rm(address, { force: true });
      }),
  };
}

/** Sends one request to the recorder of a session and returns its status. */
export async function sendControl(
  sessionId: string,
  request: ControlRequest,
  timeoutMs = 5000,
): Promise<ControlStatus> {
  const address = controlAddress(sessionId);
  const reply = await new Promise<ControlReply>((resolve, reject) => {
    const socket = createConnection(address);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new RecorderNotRunningError(sessionId));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buffer) as ControlReply);
      } catch (error) {
        reject(new RecorderNotRunningError(sessionId, { cause: error }));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(new RecorderNotRunningError(sessionId, { cause: error }));
    });
  });
  if (!reply.ok) throw new ControlRequestError(`the recorder refused: ${reply.error}`);
  return reply.status;
}
