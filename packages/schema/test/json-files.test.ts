import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { FileReadError, JsonSyntaxError } from '../src/errors.ts';
import {
  appendJsonl,
  locateJsonPath,
  parseJsonText,
  readJsonFile,
  readJsonlFile,
  writeJsonAtomic,
} from '../src/json-files.ts';

describe('JSON files', () => {
  it('reports the line and column of a syntax error', () => {
    const text = '{\n  "a": 1,\n  "b": [1, 2\n}\n';
    const error = (() => {
      try {
        parseJsonText(text, 'x.json');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error).toMatchObject({ code: 'MIME_INVALID_JSON', line: 4, column: 1 });
    expect((error as Error).message).toBe(
      'x.json:4:1: invalid JSON: expected "," between items (or a closing bracket)',
    );
  });

  it('names an empty file and a trailing comma', () => {
    expect(() => parseJsonText('  \n', 'e.json')).toThrow('e.json:1:1: invalid JSON: the file is empty');
    expect(() => parseJsonText('{"a": 1,}', 't.json')).toThrow(/t\.json:1:9: invalid JSON/);
  });

  it('says why a file cannot be read', async () => {
    const dir = await tempDir('mime-schema-');
    await expect(readJsonFile(join(dir, 'missing.json'))).rejects.toThrow(
      /missing\.json: no such file; check the path/,
    );
    await expect(readJsonFile(dir)).rejects.toBeInstanceOf(FileReadError);
    await expect(readJsonFile(dir)).rejects.toThrow(/is a directory/);
  });

  it('writes atomically with private modes and reads back', async () => {
    const dir = await tempDir('mime-schema-');
    const file = join(dir, 'deep', 'x.json');
    await writeJsonAtomic(file, { a: [1, 2] });
    expect(await readJsonFile(file)).toEqual({ a: [1, 2] });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'deep'))).mode & 0o777).toBe(0o700);
    expect(await readFile(file, 'utf8')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}\n');
  });

  it('appends whole JSONL lines and tolerates only a torn last line', async () => {
    const dir = await tempDir('mime-schema-');
    const file = join(dir, 'log.jsonl');
    await appendJsonl(file, { n: 1, text: 'a\nb' });
    await appendJsonl(file, { n: 2 });
    expect((await readJsonlFile(file)).map((l) => l.value)).toEqual([{ n: 1, text: 'a\nb' }, { n: 2 }]);

    await writeFile(file, '{"n":1}\n{"n":2}\n{"n":3, "tor', { flag: 'w' });
    expect((await readJsonlFile(file)).map((l) => l.line)).toEqual([1, 2]);

    await writeFile(file, '{"n":1}\n{oops}\n{"n":3}\n');
    await expect(readJsonlFile(file)).rejects.toThrow(/log\.jsonl:2:2: invalid JSON/);
  });

  it('locates a problem path in the text', () => {
    const text =
      '{\n  "plan": {\n    "subtasks": [\n      { "text": "a" },\n      { "text": 5 }\n    ]\n  }\n}\n';
    expect(locateJsonPath(text, 'plan.subtasks[1].text')).toEqual({ line: 5, column: 9 });
    expect(locateJsonPath(text, 'plan.subtasks[1].missing')).toEqual({ line: 5, column: 7 });
    expect(locateJsonPath('{', 'a')).toEqual({ line: 1, column: 1 });
  });
});
