/** `{name}` templates: single braces around an identifier, as ai_mime writes them. */
const TEMPLATE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Identifier rule shared by param names, extract variables and template names. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The names of every `{name}` template in a text, in order, repeats included. */
export function findTemplateNames(text: string): string[] {
  return Array.from(text.matchAll(TEMPLATE), (match) => match[1] as string);
}

/**
 * Replaces each `{name}` whose name is in `values`; other templates are left as they are (a later
 * stage may fill them, e.g. extracts known only at run time).
 */
export function renderTemplate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(TEMPLATE, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? whole) : whole,
  );
}

/** A text cut at its `{name}` templates: literal pieces and template names, in order. */
export function splitTemplate(text: string): Array<{ text: string } | { name: string }> {
  const parts: Array<{ text: string } | { name: string }> = [];
  let at = 0;
  for (const match of text.matchAll(TEMPLATE)) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index) });
    parts.push({ name: match[1] as string });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
