import type { AccessibleElement } from '@mime-desktop/schema';

/**
 * Secret typing, which is never written. The recorder sees its keys (as the person's own keyboard
 * does) and keeps them in memory only, to leave out any element that shows them (a field's text, a
 * title); nothing is looked up while it is typed.
 */
export class SecretTyping {
  #on = false;
  #keys = 0;
  #typed = '';
  readonly #texts: string[] = [];

  /** Whether secret typing is on now. */
  get on(): boolean {
    return this.#on;
  }

  /** Keys pressed while secret typing was on, ever: a change says a secret was typed since. */
  get keys(): number {
    return this.#keys;
  }

  /** Turns secret typing on or off; the text typed while it was on is remembered. */
  set(on: boolean): void {
    if (!on && this.#typed) this.#texts.push(this.#typed);
    this.#typed = '';
    this.#on = on;
  }

  /** A key went down; while secret typing is on, its text is remembered. */
  noteKey(text: string | null | undefined): void {
    if (!this.#on) return;
    this.#keys += 1;
    this.#typed += text ?? '';
  }

  /** Whether the element shows any secret typed (its name, label, window, text or path). */
  shownBy(element: AccessibleElement): boolean {
    const secrets = this.#typed ? [...this.#texts, this.#typed] : this.#texts;
    const strings = [
      element.name,
      element.label ?? '',
      element.window.name,
      element.text ?? '',
      ...element.path.map((step) => step.name),
    ];
    return secrets.some((typed) => strings.some((value) => value.includes(typed)));
  }
}
