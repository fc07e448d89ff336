/**
 * Keys read from the terminal `mime record` runs in, which need not be on the recorded display (ssh,
 * tmux, a console beside Xvfb): there Ctrl+I (the same byte as Tab) asks for an annotation and Ctrl+C
 * stops, and a one-key choice takes its key without Enter. Raw mode, decoded by Node's keypress events.
 */
import { emitKeypressEvents } from 'node:readline';

/** A key as Node's readline decodes it. */
export interface Key {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

export class TerminalKeys {
  readonly #input: NodeJS.ReadStream;
  /** A prompt reads the terminal: keys are its own. */
  #held = false;
  #listening = false;

  constructor(input: NodeJS.ReadStream = process.stdin) {
    this.#input = input;
    emitKeypressEvents(input);
  }

  /** Ctrl+I (Tab) calls `onAnnotate`, Ctrl+C `onInterrupt`, until the returned function is called. */
  listen(handlers: { onAnnotate: () => void; onInterrupt: () => void }): () => void {
    const onKey = (_text: string | undefined, key: Key | undefined) => {
      if (this.#held || !key) return;
      if (key.name === 'tab') handlers.onAnnotate();
      else if (key.ctrl && key.name === 'c') handlers.onInterrupt();
    };
    this.#listening = true;
    this.#input.setRawMode(true);
    this.#input.on('keypress', onKey);
    this.#input.resume();
    return () => {
      this.#listening = false;
      this.#input.off('keypress', onKey);
      this.#input.setRawMode(false);
      this.#input.pause();
    };
  }

  /** Runs a prompt that owns the terminal; raw mode comes back after it when listening. */
  async hold<T>(prompt: () => Promise<T>): Promise<T> {
    this.#held = true;
    try {
      return await prompt();
    } finally {
      this.#held = false;
      if (this.#listening) {
        this.#input.setRawMode(true);
        this.#input.resume();
      }
    }
  }

  /** The next key pressed, without Enter. */
  readKey(): Promise<Key> {
    this.#input.setRawMode(true);
    this.#input.resume();
    return new Promise((resolve) => {
      this.#input.once('keypress', (_text: string | undefined, key: Key | undefined) => resolve(key ?? {}));
    });
  }
}
