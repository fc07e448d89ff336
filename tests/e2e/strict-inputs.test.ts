/**
 * Strict inputs: what would be silently misread gets exit 2 naming the problem, and names JavaScript
 * objects carry (`constructor`) work as any other.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const _FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');
const NO_DISPLAY = { DISPLAY: ':99999' };

async function workflow(edit?: (text: string) => string): Promise<string> {
  const dir = await copyWorkflow('play-song-recorded', undefined, { as: 'play-song' });
  if (edit) {
    const file = join(dir, 'schema.json');
    await writeFile(file, edit(await readFile(file, 'utf8')));
  }
  return dir;
}

describe('strict inputs (exit 2, naming the problem)', () => {
  it('a duplicate key: a param meant to be secret never silently becomes plain', async () => {
    const dir = await workflow((text) =>
      text.replace('"sensitive": false', '"sensitive": true, "sensitive": false'),
    );
    const result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /schema\.json:\d+:\d+ invalid JSON: the key "sensitive" appears twice in one object/,
    );
  });

  it('--param given twice with two values', async () => {
    const dir = await workflow();
    const result = await runMime(['replay', dir, '--param', 'song_name=Numb', '--param', 'song_name=Faint'], {
      env: NO_DISPLAY,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--param song_name is given twice, as "Numb" and "Faint": give it once');
  });

  it('a rows CSV with a column twice, and a JSONL row with a __proto__ column', async () => {
    const dir = await workflow();
    const csv = join(dir, '..', 'rows.csv');
    await writeFile(csv, 'song_name,song_name\nNumb,Faint\n');
    const twice = await runMime(['replay', dir, '--rows', csv], { env: NO_DISPLAY });
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('the column "song_name" appears twice in the header; keep one');
    const jsonl = join(dir, '..', 'rows.jsonl');
    await writeFile(jsonl, '{"song_name": "Numb", "__proto__": {"polluted": "yes"}}\n');
    const proto = await runMime(['replay', dir, '--rows', jsonl], { env: NO_DISPLAY });
    expect(proto.exitCode).toBe(2);
    expect(proto.stderr).toMatch(/__proto__/);
    expect(proto.stderr).not.toMatch(/internal error/);
  });

  it('--only-failed on a folder that is not a batch, and a file as --home', async () => {
    const dir = await workflow();
    const csv = join(dir, '..', 'rows.csv');
    await writeFile(csv, 'song_name\nNumb\n');
    const notBatch = await runMime(['replay', dir, '--rows', csv, '--only-failed', dir], { env: NO_DISPLAY });
    expect(notBatch.exitCode).toBe(2);
    expect(notBatch.stderr).toMatch(/is not a batch folder \(no row-<n>\/row\.json in it\)/);
    const file = await runMime(['list', '--home', csv]);
    expect(file.exitCode).toBe(2);
    expect(file.stderr).toContain('is a file, not a folder: --home (or MIME_HOME) is the data root');
  });

  it('a param named __proto__ is refused; one named constructor works, sensitive from MIME_PARAM_CONSTRUCTOR too', async () => {
    const proto = await workflow((text) => text.replaceAll('song_name', '__proto__'));
    const refused = await runMime(['validate', proto]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('must not be __proto__');
    const named = await workflow((text) => text.replaceAll('song_name', 'constructor'));
    expect((await runMime(['validate', named])).exitCode).toBe(0);
    // It gets as far as the display: the param is read, not mistaken for Object's constructor.
    const plain = await runMime(['replay', named, '--param', 'constructor=Numb'], { env: NO_DISPLAY });
    expect(plain.stderr).toContain('MIME_NO_DISPLAY');
    const secret = await workflow((text) =>
      text
        .replaceAll('song_name', 'constructor')
        .replace('"sensitive": false', '"sensitive": true')
        .replace('"example": "Numb"', '"example": null'),
    );
    const fromEnv = await runMime(['replay', secret], {
      env: { ...NO_DISPLAY, MIME_PARAM_CONSTRUCTOR: 'Numb' },
    });
    expect(fromEnv.stderr).toContain('MIME_NO_DISPLAY');
    expect(fromEnv.stderr).not.toContain('Numb');
  });

  it("batch collect never follows a row.json's run path out of its row folder", async () => {
    const root = await tempDir('mime-collect-');
    const batch = join(root, 'batch');
    await mkdir(join(batch, 'row-1'), { recursive: true });
    await mkdir(join(root, 'outside', 'fake-run'), { recursive: true });
    await writeFile(join(root, 'outside', 'fake-run', 'summary.json'), '{"task_name": "read from outside"}');
    await writeFile(
      join(batch, 'row-1', 'row.json'),
      JSON.stringify({ row: 1, params: {}, runs: ['../../outside/fake-run'], outcome: 'success' }),
    );
    const result = await runMime(['batch', 'collect', batch]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/MIME_UNSAFE_PATH.*row-1\/row\.json run.*the path leaves the folder/);
  });
});
