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

/**
 * The control socket of one recording, claimed before the recording is named for good: a session id
 * is unique within one home's `recordings/`, but two recordings of one name started in the same
 * second from two homes (two CI jobs, two displays) make the same id, and must not share a socket.
 * A socket a live recorder answers on is never taken over; one left by a killed recorder is.
 * Requests that come before `serve` wait for it.
 */
export class ControlServer {
  readonly address: string;
  readonly #server: Server;
  #handle: Promise<(request: ControlRequest) => Promise<ControlStatus>>;
  #serve: (handle: (request: ControlRequest) => Promise<ControlStatus>) => void = () => undefined;

  private constructor(address: string) {
    this.address = address;
    this.#handle = new Promise((resolve) => {
      this.#serve = resolve;
    });
    this.#server = createServer((socket) => {
      let buffer = '';
      socket.setEncoding('utf8');
      socket.on('error', () => socket.destroy());
      socket.on('data', (chunk: string) => {
        buffer += chunk;
        const newline = buffer.indexOf('\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        void this.#answer(line).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
      });
    });
  }

  /** Listens for the session's requests, or resolves `undefined` when a live recorder already does. */
  static async claim(sessionId: string): Promise<ControlServer | undefined> {
    const control = new ControlServer(controlAddress(sessionId));
    if (process.platform !== 'win32')
      mkdirSync(join(control.address, '..'), { recursive: true, mode: 0o700 });
    try {
      await control.#listen();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if (process.platform === 'win32' || (await answers(control.address))) return undefined;
      await rm(control.address, { force: true }); // left by a recorder that was killed
      await control.#listen();
    }
    return control;
  }

  /** Answers each request with `handle` (its errors become `{ok:false}` replies). */
  serve(handle: (request: ControlRequest) => Promise<ControlStatus>): void {
    this.#serve(handle);
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      if (process.platform !== 'win32') void rm(this.address, { force: true });
    });
  }

  #listen(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.address, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
  }

  async #answer(line: string): Promise<ControlReply> {
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
      return { ok: true, status: await (await this.#handle)(parsed.data) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** Whether something accepts connections at `address` (a recorder still running there). */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(address);
    const done = (live: boolean) => {
      socket.destroy();
      resolve(live);
    };
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'),
    );
  });
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
