/**
 * The text a typing action types: as shown (a secret as `{name}`), and the value the keyboard types,
 * kept where no log, event or report reaches it (serialized, it is the shown text).
 */
export class TypedText {
  /** The text as artifacts show it: a secret as `{name}`. */
  readonly shown: string;
  readonly #value: string;

  /** A text typed as it is, or (`value`) with the secrets the workflow or the agent put there. */
  constructor(shown: string, value: string = shown) {
    this.shown = shown;
    this.#value = value;
  }

  /** What the keyboard types: for the desktop's typing only. */
  get value(): string {
    return this.#value;
  }

  toJSON(): string {
    return this.shown;
  }

  toString(): string {
    return this.shown;
  }
}
