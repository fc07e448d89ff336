/**
 * HTML built by a tagged template that escapes every interpolated value, so text from a run (model
 * observations, typed text, file names) can never become markup. Only {@link Html} values, built by
 * `html` itself or by `trustedHtml` for the report's own constants, pass through unescaped.
 */

/** A piece of markup that is safe to insert as is. */
export class Html {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

/** What a template may interpolate: `null`, `undefined` and `false` render nothing (for `cond && html```). */
export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Markup with every interpolation escaped (arrays are joined, nested `html` kept). */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

/** Markup the report itself wrote (its stylesheet and script); never text from a run. */
export function trustedHtml(text: string): Html {
  return new Html(text);
}
