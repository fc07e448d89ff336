/**
 * Rows files on real files: CSV with a header of param names and JSONL with one object a line are
 * read as strings by column; a file that cannot drive a batch is refused before anything runs with
 * MIME_ROWS_INVALID naming the file, the line or row, and the column.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareReplay } from '@mime-desktop/replay';
import { loadWorkflow, TaskParam, type Workflow } from '@mime-desktop/schema';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { countReads } from '@mime-desktop/test-support/read-count';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';
import { checkRows, MAX_ROWS, type Rows, RowsError, readRows } from '../src/index.ts';

/** A rows file named `name` holding `text`, in a temp folder of the test. */
async function rowsFile(name: string, text: string): Promise<string> {
  const file = join(await tempDir('mime-rows-'), name);
  await writeFile(file, text);
  return file;
}

/** The refusal `readRows` gives for `text` in a file named `name`. */
async function refusal(name: string, text: string): Promise<{ file: string; error: unknown }> {
  const file = await rowsFile(name, text);
  return { file, error: await readRows(file).catch((error: unknown) => error) };
}

describe('a CSV rows file', () => {
  it('is read by its header: names and values trimmed, quoted commas kept, BOM and blank lines dropped', async () => {
    const file = await rowsFile(
      'rows.csv',
      '\uFEFF song_name , count\nNumb,1\n\n"Viva la Vida, live" , 2 \n  Faint  ,3\n',
    );
    expect(await readRows(file)).toEqual({
      file,
      columns: ['song_name', 'count'],
      rows: [
        { song_name: 'Numb', count: '1' },
        { song_name: 'Viva la Vida, live', count: '2' },
        { song_name: 'Faint', count: '3' },
      ],
    });
  });

  it('is refused with a column twice in the header, naming it', async () => {
    const { file, error } = await refusal('rows.csv', 'song_name,song_name\nNumb,Faint\n');
    expect(error).toBeInstanceOf(RowsError);
    expect(error).toMatchObject({
      code: 'MIME_ROWS_INVALID',
      message: `${file}: the column "song_name" appears twice in the header; keep one`,
    });
  });

  it("is refused when it is not CSV (a row with more cells than the header), with the parser's reason", async () => {
    const { file, error } = await refusal('rows.csv', 'song_name\nNumb,extra\n');
    expect(error).toMatchObject({ code: 'MIME_ROWS_INVALID' });
    expect((error as Error).message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a valid CSV file: .*line 2`),
    );
  });

  it('is refused with a header and no rows, saying to add one', async () => {
    const { file, error } = await refusal('rows.CSV', 'song_name\n\n');
    expect(error).toMatchObject({
      code: 'MIME_ROWS_INVALID',
      message: `${file}: no rows; add one line a run under the header`,
    });
  });

  it(`is refused past ${MAX_ROWS} rows, saying to split it`, async () => {
    const { file, error } = await refusal('rows.csv', `n\n${'1\n'.repeat(MAX_ROWS + 1)}`);
    expect(error).toMatchObject({
      code: 'MIME_ROWS_INVALID',
      message: `${file}: more than ${MAX_ROWS} rows; split it`,
    });
  });
});

describe('a JSONL rows file', () => {
  it('holds one object a line: numbers and booleans as text, columns from every line in order', async () => {
    const file = await rowsFile(
      'rows.ndjson',
      '{"song_name": "Numb", "count": 1}\n\n{"song_name": "Faint", "loud": true}\n',
    );
    const rows = await readRows(file);
    expect(rows.columns).toEqual(['song_name', 'count', 'loud']);
    expect(rows.rows.map((row) => ({ ...row }))).toEqual([
      { song_name: 'Numb', count: '1' },
      { song_name: 'Faint', loud: 'true' },
    ]);
  });

  it('keeps a __proto__ key as a column of its own, never the prototype of the row', async () => {
    const rows = await readRows(await rowsFile('rows.jsonl', '{"__proto__": "x", "song_name": "Numb"}\n'));
    expect(rows.columns).toEqual(['__proto__', 'song_name']);
    expect(Object.getPrototypeOf(rows.rows[0])).toBeNull();
    expect(Object.hasOwn(rows.rows[0] ?? {}, '__proto__')).toBe(true);
  });

  it('is refused naming every line that is not an object and every value that is not plain', async () => {
    const { file, error } = await refusal(
      'rows.jsonl',
      '{"song_name": "Numb"}\n["Faint"]\n{"song_name": {"title": "x"}, "n": null}\n"Yellow"\n',
    );
    expect(error).toMatchObject({
      code: 'MIME_ROWS_INVALID',
      message: [
        `${file}:`,
        'line 2: a row is a JSON object such as {"song_name": "Numb"}',
        'line 3: song_name: values are strings, numbers or booleans',
        'line 3: n: values are strings, numbers or booleans',
        'line 4: a row is a JSON object such as {"song_name": "Numb"}',
      ].join('\n  '),
    });
  });

  it('is refused at a line that is not JSON, naming the line, even the last one without its newline', async () => {
    const { file, error } = await refusal('rows.jsonl', '{"song_name": "Numb"}\n{"song_name": "Fa');
    expect(error).toMatchObject({ code: 'MIME_INVALID_JSON' });
    expect((error as Error).message).toMatch(`${file}:2:`);
  });
});

describe('a rows file of another kind', () => {
  it('is refused by its extension, saying which two kinds a rows file is', async () => {
    const { file, error } = await refusal('rows.txt', 'song_name\nNumb\n');
    expect(error).toMatchObject({
      code: 'MIME_ROWS_INVALID',
      message: `${file}: a rows file is .csv (a header of param names) or .jsonl (one JSON object a line)`,
    });
  });
});

describe('rows checked against the workflow', () => {
  /** The demo workflow (song_name, required) with a required integer `count` and a sensitive `pin`. */
  async function workflow(): Promise<Workflow> {
    const { workflow } = await loadWorkflow(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song'));
    return {
      ...workflow,
      task_params: [
        ...workflow.task_params,
        TaskParam.parse({ name: 'count', type: 'integer', description: 'times', example: '2' }),
        TaskParam.parse({ name: 'pin', description: 'the PIN', example: null, sensitive: true }),
      ],
    };
  }
  const rows = (columns: string[], ...values: Array<Record<string, string>>): Rows => ({
    file: '/data/rows.csv',
    columns,
    rows: values,
  });
  const problem = (check: () => void) => {
    try {
      check();
    } catch (error) {
      expect(error).toBeInstanceOf(RowsError);
      return (error as RowsError).message;
    }
    throw new Error('the rows were accepted');
  };

  it('pass when every column is a param and every row has valid values', async () => {
    const wf = await workflow();
    const good = rows(
      ['song_name', 'count'],
      { song_name: 'Numb', count: '1' },
      { song_name: 'Faint', count: '+3' },
    );
    expect(() => checkRows(wf, good, { allowSecrets: false })).not.toThrow();
  });

  it("refuse a column that is no param, listing the workflow's params", async () => {
    const wf = await workflow();
    const message = problem(() =>
      checkRows(wf, rows(['song_name', 'title', 'artist'], { song_name: 'x', title: 'y', artist: 'z' }), {
        allowSecrets: false,
      }),
    );
    expect(message).toBe(
      '/data/rows.csv: columns title, artist are not a param of the workflow (its params: song_name, count, pin)',
    );
  });

  it('refuse a sensitive column unless secrets in rows are allowed', async () => {
    const wf = await workflow();
    const withPin = rows(['song_name', 'count', 'pin'], { song_name: 'Numb', count: '1', pin: '1234' });
    const message = problem(() => checkRows(wf, withPin, { allowSecrets: false }));
    expect(message).toMatch(/^\/data\/rows\.csv: column pin holds a sensitive param; .*MIME_PARAM_<NAME>/);
    expect(message).not.toContain('1234');
    expect(() => checkRows(wf, withPin, { allowSecrets: true })).not.toThrow();
  });

  it('name every row that does not fit, by its number, with what is wrong', async () => {
    const wf = await workflow();
    const message = problem(() =>
      checkRows(
        wf,
        rows(
          ['song_name', 'count'],
          { song_name: 'Numb', count: '1' },
          { song_name: 'Faint', count: 'two' },
          {
            song_name: 'Yellow',
          },
        ),
        { allowSecrets: false },
      ),
    );
    const [head, ...lines] = message.split('\n  ');
    expect(head).toBe('/data/rows.csv: 2 row(s) do not fit the workflow:');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^row 2: .*count: expected an integer, got "two"/);
    expect(lines[1]).toMatch(/^row 3: .*\bcount\b/);
    expect(lines.join(' ')).not.toContain('\n');
  });

  it("resolve each row's params once: the value read by the check is the one the run renders", async () => {
    const loaded = await loadWorkflow(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'));
    const { values: row, reads } = countReads<Record<string, string>>({ song_name: 'Faint' });
    const [checked] = checkRows(loaded.workflow, rows(['song_name'], row), { allowSecrets: false });
    const prepared = await prepareReplay(loaded, { mode: 'trace', checkedParams: checked });
    expect(reads).toEqual(['song_name']);
    expect(prepared.materialized.params).toEqual([
      expect.objectContaining({ name: 'song_name', display: 'Faint', source: 'override' }),
    ]);
  });

  it("take a missing param's recorded example only when told to use examples", async () => {
    const wf = await workflow();
    const noCount = rows(['song_name'], { song_name: 'Numb' });
    expect(problem(() => checkRows(wf, noCount, { allowSecrets: false }))).toMatch(/^.*\n {2}row 1: .*count/);
    expect(() => checkRows(wf, noCount, { allowSecrets: false, useExamples: true })).not.toThrow();
  });
});
