/**
 * The vision process: OCR (tesseract.js) and template matching (OpenCV.js) run in a child process
 * instead of this one, for a long-lived host (`mime mcp`) whose memory must fall back after replays.
 * Their WebAssembly heaps (about 165 MB and 96 MB) never shrink; a child that exits when idle gives
 * them back. A one-shot run does not ask for it and keeps both in its own process (no second start).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { VisionProcessError } from './errors.ts';
import {
  errorFromWire,
  type VisionCall,
  type VisionMethod,
  type VisionMethods,
  type VisionReply,
} from './vision-wire.ts';

export interface VisionProcessOptions {
  /** The child exits after this long with no request in flight, ms. Default 30000. */
  idleMs?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  method: VisionMethod;
  /** The child asked: only its exit fails the call. */
  child: ChildProcess;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The vision process this process's OCR and template matching go to (`useVisionProcess`), if any. */
let active: VisionProcess | undefined;

/**
 * The child's entry: the built `.js` beside this file when built (an installed `dist/`, or the tests'
 * bundle, scripts/bundle.ts), the `.ts` source (through tsx) in a checkout.
 */
function childCommand(): { entry: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./vision-child.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return { entry, execArgv: fromSource ? ['--import', import.meta.resolve('tsx/esm')] : [] };
}

/**
 * One child process for vision work, started at the first call and reused; it exits after `idleMs`
 * with nothing asked of it (the next call starts a new one) and when this process dies (its IPC
 * channel closes). Calls are answered in any order; an error thrown in the child is thrown here as
 * the same class with the same message and `code`. Images cross as binary (V8 serialization), not JSON.
 */
export class VisionProcess {
  readonly idleMs: number;
  #child: ChildProcess | undefined;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: VisionProcessOptions = {}) {
    this.idleMs = options.idleMs ?? 30_000;
  }

  /** The child's process id, while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Asks the child to run `method` with `args`; starts it first when it is not running. */
  call<M extends VisionMethod>(
    method: M,
    ...args: Parameters<VisionMethods[M]>
  ): ReturnType<VisionMethods[M]> {
    const child = this.#running();
    const id = this.#nextId++;
    clearTimeout(this.#idleTimer);
    // While a call is in flight, the child keeps this process alive; idle, it does not.
    if (this.#pending.size === 0) this.#hold(child, true);
    return new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method, child });
      const message: VisionCall = { id, method, args };
      child.send(message, (error) => {
        if (error)
          this.#settle(id, { ok: false, error: new VisionProcessError(`could not send ${method}`, error) });
      });
    }) as ReturnType<VisionMethods[M]>;
  }

  /**
   * Ends the child and, when this is the process's vision process (`useVisionProcess`), that too: OCR
   * and template matching run in this process again. Resolves once the child has exited.
   */
  async close(): Promise<void> {
    if (active === this) active = undefined;
    await this.#stop();
  }

  /** Ends the child (a later call starts a new one); resolves once it has exited. */
  async #stop(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    else child.kill();
    await exited;
  }

  #running(): ChildProcess {
    if (this.#child) return this.#child;
    const { entry, execArgv } = childCommand();
    // stdout is not this process's: a stdio MCP server speaks on its own.
    const child = fork(entry, [], {
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.#child = child;
    child.on('message', (reply: VisionReply) =>
      this.#settle(reply.id, reply.ok ? reply : { ok: false, error: errorFromWire(reply.failure) }),
    );
    child.once('exit', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      for (const [id, { method, child: asked }] of this.#pending) {
        if (asked !== child) continue;
        this.#settle(id, {
          ok: false,
          error: new VisionProcessError(
            `the vision process (OCR, template matching) ended (${how}) before answering ${method}; the next call starts a new one`,
          ),
        });
      }
    });
    child.once('error', (error) => {
      for (const [id, { child: asked }] of this.#pending) {
        if (asked !== child) continue;
        this.#settle(id, {
          ok: false,
          error: new VisionProcessError('the vision process could not be started', error),
        });
      }
    });
    return child;
  }

  #settle(id: number, outcome: Outcome): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (outcome.ok) pending.resolve(outcome.value);
    else pending.reject(outcome.error);
    if (this.#pending.size > 0) return;
    const child = this.#child;
    if (!child) return;
    this.#hold(child, false);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#pending.size === 0 && this.#child === child) void this.#stop();
    }, this.idleMs);
    this.#idleTimer.unref();
  }

  /** Whether the child (and its channel) keep this process's event loop alive. */
  #hold(child: ChildProcess, hold: boolean): void {
    const channel = child.channel as { ref(): void; unref(): void } | null | undefined;
    if (hold) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }
}

/**
 * From now on, this process's OCR (every `OcrEngine`) and template matching (`findTemplate`) run in
 * one child process that exits when idle. For a long-lived host: a one-shot run is faster without.
 * Calling it again replaces the one before; `close()` of what it returns ends the child and the switch.
 */
export function useVisionProcess(options: VisionProcessOptions = {}): VisionProcess {
  const previous = active;
  active = new VisionProcess(options);
  void previous?.close();
  return active;
}

/** The vision process this process's OCR and template matching go to, if asked for. */
export function activeVisionProcess(): VisionProcess | undefined {
  return active;
}
