/**
 * `Play a Song (démo)!` → `play-a-song-demo`: the lowercase ASCII letters and digits of a text, accents
 * dropped, runs of anything else one `separator`, at most `maxLength` characters, no separator at
 * either end; empty when nothing is left. Session folders, tool, skill and param names are made so.
 */
export function slugOf(text: string, separator: '-' | '_', maxLength: number): string {
  const trim = separator === '-' ? /^-+|-+$/g : /^_+|_+$/g;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, separator)
    .replace(trim, '')
    .slice(0, maxLength)
    .replace(trim, '');
}
