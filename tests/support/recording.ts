/** What an e2e test reads of a `mime record` session: its progress lines and its manifest. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A line of the recorder's progress saying it recorded event `index`. */
export const recorded = (index: number) => new RegExp(`^ {2}#${index} `, 'm');

/** The recording's manifest.jsonl, one object an event. */
export async function manifestOf(dir: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(dir, 'manifest.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
