/**
 * The messages of a job the page watches (a replay, a reflect), kept in order so a page that connects
 * late, or reconnects, gets every one it has not seen, then the rest as they come.
 */
export class MessageLog<M> {
  readonly messages: M[] = [];
  readonly #listeners = new Set<(message: M, index: number) => void>();

  push(message: M): void {
    const index = this.messages.push(message) - 1;
    for (const listener of this.#listeners) listener(message, index);
  }

  /**
   * Calls `listener` with every message from the `from`-th on, past ones at once and coming ones as
   * they come, each with its index; returns how to stop listening.
   */
  listen(listener: (message: M, index: number) => void, from = 0): () => void {
    for (let index = from; index < this.messages.length; index += 1) {
      listener(this.messages[index] as M, index);
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
