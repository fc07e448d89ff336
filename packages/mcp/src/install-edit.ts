/**
 * Edits of a client's configuration file in place: the `mime` entry is merged (mime's own keys replaced,
 * the user's other keys, `env` and larger timeouts kept) and everything else, comments and layout
 * included, stays as it was. JSON and JSONC through jsonc-parser's `modify`, TOML through toml-patch,
 * YAML through the yaml library's document API.
 */
import { patch as patchToml } from '@decimalturn/toml-patch';
import {
  applyEdits,
  type FormattingOptions,
  modify as modifyJsonc,
  type ParseError,
  parse as parseJsonc,
  printParseErrorCode,
} from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { isMap, parseDocument } from 'yaml';
import { McpOptionError } from './errors.ts';
import type { EntryChange } from './install-clients.ts';

export const SERVER_NAME = 'mime';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const refuse = (file: string, what: string) =>
  new McpOptionError(`${file} ${what}: fix it first, mime leaves it as it is`);

/** The entry after the change, from the one there (undefined: none). */
export function mergedEntry(existing: unknown, change: EntryChange): Json {
  const entry: Json = isObject(existing) ? { ...existing } : { ...change.set };
  for (const [key, value] of Object.entries(change.defaults)) if (!(key in entry)) entry[key] = value;
  Object.assign(entry, change.set);
  for (const [key, value] of Object.entries(change.atLeast)) {
    const current = entry[key];
    entry[key] = typeof current === 'number' && current >= value ? current : value;
  }
  return entry;
}

/** The keys whose value differs between the entry there and the merged one, in the merged one's order. */
function changedKeys(existing: unknown, merged: Json): string[] {
  const before = isObject(existing) ? existing : {};
  return Object.keys(merged).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(merged[key]));
}

/** The map of servers at `path` in a parsed file, refused when something else stands there. */
function serversIn(config: Json, path: string[], file: string): Json | undefined {
  let node: unknown = config;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
    if (node === undefined) return undefined;
  }
  if (!isObject(node)) throw refuse(file, `has "${path.join('.')}" that is not an object`);
  const entry = node[SERVER_NAME];
  if (entry !== undefined && !isObject(entry))
    throw refuse(file, `has "${[...path, SERVER_NAME].join('.')}" that is not an object`);
  return node;
}

/** The indentation the file already uses (two spaces when it is new or flat). */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol: '\n' }
    : { insertSpaces: true, tabSize: indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** JSON or JSONC (comments always kept; trailing commas only where the client reads them). */
export function editJson(
  before: string | null,
  path: string[],
  change: EntryChange,
  file: string,
  trailingCommas = false,
): string {
  const text = before === null || before.trim() === '' ? '{}\n' : before;
  const errors: ParseError[] = [];
  const config: unknown = parseJsonc(text, errors, {
    allowTrailingComma: trailingCommas,
    disallowComments: false,
  });
  const [error] = errors;
  if (error) {
    const lines = text.slice(0, error.offset).split('\n');
    // "PropertyNameExpected" -> "property name expected"
    const reason = printParseErrorCode(error.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw refuse(
      file,
      `is not valid JSON (${reason} at line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1})`,
    );
  }
  if (!isObject(config)) throw refuse(file, 'does not hold a JSON object');
  const existing = serversIn(config, path, file)?.[SERVER_NAME];
  const merged = mergedEntry(existing, change);
  const formatting = formattingOf(text);
  let after = text;
  if (existing === undefined) {
    after = applyEdits(
      after,
      modifyJsonc(after, [...path, SERVER_NAME], merged, { formattingOptions: formatting }),
    );
  } else {
    for (const key of changedKeys(existing, merged))
      after = applyEdits(
        after,
        modifyJsonc(after, [...path, SERVER_NAME, key], merged[key], { formattingOptions: formatting }),
      );
  }
  return after.endsWith('\n') ? after : `${after}\n`;
}

/** Equal as data, whatever the order of keys (a patched table keeps the file's order). */
function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object' && !(value instanceof Date)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, canonical((value as Json)[key])]),
          )
        : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** TOML: a new table is appended (the file untouched above it); an existing one is patched in place. */
export function editToml(before: string | null, path: string[], change: EntryChange, file: string): string {
  const text = before ?? '';
  let config: Json;
  try {
    config = parseToml(text) as Json;
  } catch (error) {
    throw refuse(file, `is not valid TOML (${(error as Error).message.split('\n')[0]})`);
  }
  const existing = serversIn(config, path, file)?.[SERVER_NAME];
  const merged = mergedEntry(existing, change);
  if (existing !== undefined && changedKeys(existing, merged).length === 0) return text;
  const nested = path.reduceRight<Json>((inner, key) => ({ [key]: inner }), { [SERVER_NAME]: merged });
  const candidates: string[] = [];
  if (existing === undefined) {
    const block = stringifyToml(nested);
    candidates.push(text.trim() === '' ? block : `${text.replace(/\n*$/, '\n')}\n${block}`);
  }
  const target = structuredClone(config);
  let node = target;
  for (const key of path) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[SERVER_NAME] = merged;
  candidates.push(patchToml(text, target));
  // The first edit that reads back as the intended document: appending a table is invalid when the
  // servers are an inline table, and the patch then takes over.
  for (const candidate of candidates) {
    try {
      if (sameValue(parseToml(candidate), target))
        return candidate.endsWith('\n') ? candidate : `${candidate}\n`;
    } catch {}
  }
  throw refuse(file, 'has a layout mime cannot edit without rewriting it');
}

/** YAML: the entry set through the document, so comments and the other keys stay. */
export function editYaml(before: string | null, path: string[], change: EntryChange, file: string): string {
  const doc = parseDocument(before ?? '');
  const [error] = doc.errors;
  if (error) throw refuse(file, `is not valid YAML (${error.message.split('\n')[0]})`);
  if (doc.contents !== null && !isMap(doc.contents)) throw refuse(file, 'does not hold a YAML mapping');
  const config = (doc.toJS() ?? {}) as Json;
  const existing = serversIn(config, path, file)?.[SERVER_NAME];
  const merged = mergedEntry(existing, change);
  if (existing === undefined) doc.setIn([...path, SERVER_NAME], doc.createNode(merged, { flow: false }));
  else for (const key of changedKeys(existing, merged)) doc.setIn([...path, SERVER_NAME, key], merged[key]);
  return doc.toString();
}

/** The entry alone, as it stands in the client's file (what `--print` shows). */
export function entryText(format: 'json' | 'toml' | 'yaml', path: string[], change: EntryChange): string {
  const nested = path.reduceRight<Json>((inner, key) => ({ [key]: inner }), {
    [SERVER_NAME]: mergedEntry(undefined, change),
  });
  if (format === 'toml') return stringifyToml(nested);
  if (format === 'yaml') return editYaml(null, path, change, 'the entry');
  return JSON.stringify(nested, null, 2);
}
