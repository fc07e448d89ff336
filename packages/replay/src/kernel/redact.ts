import { placeholderOf } from './materialize.ts';

/** Replaces secret values with their `{name}` placeholder in text and in JSON-like values; redacting twice changes nothing. */
export interface Redactor {
  text(text: string): string;
  /** A deep copy of `value` with every string redacted (plain objects and arrays are walked). */
  value<T>(value: T): T;
}

/** A redactor for the sensitive values of a run (longest first, so one value inside another is still hidden). */
export function createRedactor(secrets: ReadonlyMap<string, string>): Redactor {
  const pairs = [...secrets.entries()]
    .filter(([, value]) => value !== '')
    .sort(([, a], [, b]) => b.length - a.length)
    .map(([name, value]) => [value, placeholderOf(name)] as const);
  // One pass, placeholders first: a placeholder already in the text stays as it is (redacting twice
  // changes nothing), and no secret is looked for inside another's placeholder (a secret `word` would
  // otherwise turn `{password}` into `{pass{password}}`). Longer secrets first.
  const placeholderOfSecret = new Map(pairs);
  const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(
    [...pairs.map(([, placeholder]) => placeholder), ...pairs.map(([secret]) => secret)]
      .map(literally)
      .join('|'),
    'g',
  );
  const text = (input: string): string =>
    pairs.length === 0 ? input : input.replace(pattern, (found) => placeholderOfSecret.get(found) ?? found);
  const walk = (input: unknown): unknown => {
    if (typeof input === 'string') return text(input);
    if (Array.isArray(input)) return input.map(walk);
    if (input !== null && typeof input === 'object' && Object.getPrototypeOf(input) === Object.prototype) {
      return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, walk(v)]));
    }
    return input;
  };
  return { text, value: <T>(input: T) => (pairs.length === 0 ? input : (walk(input) as T)) };
}
