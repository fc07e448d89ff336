import { createHash } from 'node:crypto';

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

/**
 * A name for a task that stays distinct whatever script it is written in: its {@link slugOf}, with a
 * short hash of the whole name after it where the slug lost letters (`播放歌曲` → `workflow-1c0e7a`,
 * `Grüße senden` → `gru-e-senden-4b1f09`), so two names that slug alike still differ, and the same
 * name always gives the same. `fallback` stands for a slug with nothing left.
 */
export function distinctSlugOf(
  text: string,
  separator: '-' | '_',
  maxLength: number,
  fallback: string,
): string {
  const slug = slugOf(text, separator, maxLength);
  const lossy = /[^\p{ASCII}]/u.test(text.normalize('NFKD').replace(/[\u0300-\u036f]/g, ''));
  if (slug !== '' && !lossy) return slug;
  const suffix = `${separator}${createHash('sha256').update(text).digest('hex').slice(0, 6)}`;
  return `${(slug || fallback).slice(0, maxLength - suffix.length)}${suffix}`;
}
