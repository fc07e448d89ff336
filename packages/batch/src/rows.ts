/**
 * Rows files: CSV with a header of param names, or JSONL with one object a line. Bounded (size, rows,
 * record size) and checked against the workflow before anything runs: every problem names the row
 * and column.
 */
import { extname } from 'node:path';
import { checkParams, type RunParams } from '@mime-desktop/replay';
import { isMimeError, readJsonlFile, readTextFile, type Workflow } from '@mime-desktop/schema';
import { parse } from 'csv-parse/sync';
import { RowsError } from './errors.ts';

/** The most rows a batch takes. */
export const MAX_ROWS = 100_000;

export interface Rows {
  file: string;
  /** Column names (CSV header, or the keys of the JSONL objects). */
  columns: string[];
  /** Values by column, one record a row, in file order (row n is `rows[n - 1]`). */
  rows: Array<Record<string, string>>;
}

function readCsv(file: string, text: string): Rows {
  let records: Array<Record<string, string>>;
  let columns: string[] = [];
  try {
    records = parse(text, {
      columns: (header: string[]) => {
        columns = header.map((name) => name.trim());
        const twice = columns.find((name, i) => columns.indexOf(name) !== i);
        if (twice !== undefined) {
          throw new RowsError(`${file}: the column "${twice}" appears twice in the header; keep one`);
        }
        return columns;
      },
      skip_empty_lines: true,
      trim: true,
      bom: true,
      max_record_size: 1024 * 1024,
      to: MAX_ROWS + 1,
    });
  } catch (error) {
    if (error instanceof RowsError) throw error;
    throw new RowsError(`${file}: not a valid CSV file: ${(error as Error).message}`, { cause: error });
  }
  return { file, columns, rows: records };
}

async function readJsonlRows(file: string): Promise<Rows> {
  const problems: string[] = [];
  const rows: Array<Record<string, string>> = [];
  for (const { line, value } of await readJsonlFile(file, { tolerateTornTail: false, inside: false })) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`line ${line}: a row is a JSON object such as {"song_name": "Numb"}`);
      continue;
    }
    // No prototype: a `__proto__` column stays a column (refused below as no param's name).
    const row: Record<string, string> = Object.create(null);
    for (const [name, cell] of Object.entries(value)) {
      if (typeof cell === 'string' || typeof cell === 'number' || typeof cell === 'boolean')
        row[name] = String(cell);
      else problems.push(`line ${line}: ${name}: values are strings, numbers or booleans`);
    }
    rows.push(row);
  }
  if (problems.length > 0) throw new RowsError(`${file}:\n  ${problems.slice(0, 20).join('\n  ')}`);
  return { file, columns: [...new Set(rows.flatMap((r) => Object.keys(r)))], rows };
}

/** Reads a CSV (`.csv`) or JSONL (`.jsonl`, `.ndjson`) rows file. */
export async function readRows(file: string): Promise<Rows> {
  const kind = extname(file).toLowerCase();
  let rows: Rows;
  if (kind === '.csv') rows = readCsv(file, await readTextFile(file, { inside: false }));
  else if (kind === '.jsonl' || kind === '.ndjson') rows = await readJsonlRows(file);
  else
    throw new RowsError(
      `${file}: a rows file is .csv (a header of param names) or .jsonl (one JSON object a line)`,
    );
  if (rows.rows.length === 0) throw new RowsError(`${file}: no rows; add one line a run under the header`);
  if (rows.rows.length > MAX_ROWS) throw new RowsError(`${file}: more than ${MAX_ROWS} rows; split it`);
  return rows;
}

/**
 * Checks the rows against the workflow: every column a param, no sensitive param unless allowed,
 * every row's values valid for their params, every required param given (a recorded example only with
 * `useExamples`). Throws {@link RowsError} listing the problems by row; else returns each row's params,
 * resolved once (a row on this display replays with them as they are).
 */
export function checkRows(
  workflow: Workflow,
  rows: Rows,
  options: { allowSecrets: boolean; useExamples?: boolean },
): RunParams[] {
  const params = new Map(workflow.task_params.map((p) => [p.name, p]));
  const unknown = rows.columns.filter((c) => !params.has(c));
  if (unknown.length > 0) {
    throw new RowsError(
      `${rows.file}: column${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a param of the workflow (its params: ${[...params.keys()].join(', ') || 'none'})`,
    );
  }
  const secret = rows.columns.filter((c) => params.get(c)?.sensitive);
  if (secret.length > 0 && !options.allowSecrets) {
    throw new RowsError(
      `${rows.file}: column ${secret.join(', ')} holds a sensitive param; sensitive values come from the environment (MIME_PARAM_<NAME>), not from a file others may read. Remove the column, or allow secrets in rows explicitly`,
    );
  }
  const problems: string[] = [];
  const checked: RunParams[] = [];
  for (const [index, row] of rows.rows.entries()) {
    try {
      checked.push(checkParams(workflow, row, { useExamples: options.useExamples }));
    } catch (error) {
      if (!isMimeError(error)) throw error;
      problems.push(`row ${index + 1}: ${error.message.replace(/\n\s*/g, '; ')}`);
    }
  }
  if (problems.length > 0) {
    throw new RowsError(
      `${rows.file}: ${problems.length} row(s) do not fit the workflow:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  return checked;
}
