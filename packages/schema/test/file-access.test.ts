/**
 * The file-access layer on real files: reads only regular files inside their folder (a link out, a
 * FIFO, /dev/zero refused at once), writes never through a symbolic link, a copy never over one, and
 * a failed write named by its cause.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { readRegularFile } from '../src/bounded-read.ts';
import {
  DiskFullError,
  FileReadError,
  NotWritableError,
  namedWriteError,
  UnsafePathError,
} from '../src/errors.ts';
import {
  appendJsonl,
  copyFileUnique,
  makeFolder,
  readJsonFile,
  readTextFile,
  writeFileAtomically,
} from '../src/json-files.ts';

/** A folder with `a.json`, and an outside folder with `secret.json` a link could reach. */
async function folders() {
  const inside = await tempDir('mime-access-');
  const outside = await tempDir('mime-access-');
  await writeFile(join(inside, 'a.json'), '{"a": 1}\n');
  await writeFile(join(outside, 'secret.json'), '{"secret": true}\n');
  return { inside, outside };
}

describe('reading', () => {
  it('follows a link inside the folder, refuses one out of it, and reads a user-named link when told', async () => {
    const { inside, outside } = await folders();
    await symlink('a.json', join(inside, 'alias.json'));
    expect(await readJsonFile(join(inside, 'alias.json'))).toEqual({ a: 1 });
    await symlink(join(outside, 'secret.json'), join(inside, 'schema.json'));
    await expect(readJsonFile(join(inside, 'schema.json'))).rejects.toThrow(UnsafePathError);
    await expect(readJsonFile(join(inside, 'schema.json'))).rejects.toThrow(
      /resolves to .*secret\.json, outside/,
    );
    expect(await readJsonFile(join(inside, 'schema.json'), { inside: false })).toEqual({ secret: true });
  });

  it('refuses a FIFO and /dev/zero at once, naming what they are', async () => {
    const { inside } = await folders();
    execFileSync('mkfifo', [join(inside, 'pipe.json')]);
    await symlink('/dev/zero', join(inside, 'zero.json'));
    const started = performance.now();
    await expect(readTextFile(join(inside, 'pipe.json'))).rejects.toThrow(
      /is a named pipe \(FIFO\), not a regular file/,
    );
    await expect(readTextFile(join(inside, 'zero.json'))).rejects.toThrow(/is a device, not a regular file/);
    await expect(readRegularFile(join(inside, 'zero.json'), 10, 'x', { inside: false })).rejects.toThrow(
      FileReadError,
    );
    // Refused by what they are, not read: a read of the pipe would wait for a writer that never
    // comes (until the test's timeout), one of /dev/zero would run to the size bound. The bound tells
    // that from a refusal with a margin for a busy machine; it is not a speed figure.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('writing', () => {
  it('never writes through a link: the file, a folder on the way, or a folder it makes', async () => {
    const { inside, outside } = await folders();
    await symlink(join(outside, 'secret.json'), join(inside, 'schema.json'));
    await expect(writeFileAtomically(join(inside, 'schema.json'), 'x')).rejects.toThrow(
      /schema\.json is a symbolic link; mime never writes through a link/,
    );
    await symlink(outside, join(inside, '.replay'));
    await expect(makeFolder(join(inside, '.replay'))).rejects.toThrow(UnsafePathError);
    await expect(
      writeFileAtomically(join(inside, '.replay', 'run', 'events.json'), 'x', { inside }),
    ).rejects.toThrow(/\.replay is a symbolic link/);
    await expect(appendJsonl(join(inside, '.replay', 'e.jsonl'), {}, { inside })).rejects.toThrow(
      UnsafePathError,
    );
    expect(await readFile(join(outside, 'secret.json'), 'utf8')).toBe('{"secret": true}\n');
    expect((await readdir(outside)).sort()).toEqual(['secret.json']);
  });

  it('writes through a link the user keeps on purpose when told, and into a folder named as a link', async () => {
    const { inside, outside } = await folders();
    await symlink(join(outside, 'secret.json'), join(inside, 'config.json'));
    await writeFileAtomically(join(inside, 'config.json'), '{"mine": 1}\n', { inside: false });
    expect(await readFile(join(outside, 'secret.json'), 'utf8')).toBe('{"mine": 1}\n');
    const named = join(await tempDir('mime-access-'), 'home');
    await symlink(inside, named);
    await makeFolder(join(named, 'workflows', 'wf'), { inside: named });
    expect(await readdir(join(inside, 'workflows'))).toEqual(['wf']);
  });

  it('copies a backup beside the file, never over a file or a link', async () => {
    const { inside, outside } = await folders();
    await symlink(join(outside, 'secret.json'), join(inside, 'backup.json'));
    const copy = await copyFileUnique(join(inside, 'a.json'), join(inside, 'backup.json'));
    expect(copy).toBe(join(inside, 'backup-2.json'));
    expect(await readFile(copy, 'utf8')).toBe('{"a": 1}\n');
    expect(await readFile(join(outside, 'secret.json'), 'utf8')).toBe('{"secret": true}\n');
  });

  it('names a full disk and a read-only or unwritable folder', async () => {
    const errno = (code: string) => Object.assign(new Error(code), { code });
    expect(namedWriteError('/w/schema.json', errno('ENOSPC'))).toBeInstanceOf(DiskFullError);
    const readOnly = namedWriteError('/w/schema.json', errno('EROFS'));
    expect(readOnly).toBeInstanceOf(NotWritableError);
    expect(readOnly).toMatchObject({ code: 'MIME_NOT_WRITABLE', exit: 'usage' });
    expect((readOnly as Error).message).toMatch(
      /cannot write schema\.json: \/w is on a read-only file system/,
    );
    expect((namedWriteError('/w/a', errno('EACCES')) as Error).message).toMatch(/not writable by this user/);
    const other = errno('EIO');
    expect(namedWriteError('/w/a', other)).toBe(other);
  });

  it('makes a folder inside a real one', async () => {
    const { inside } = await folders();
    await makeFolder(join(inside, 'a', 'b'));
    await mkdir(join(inside, 'a', 'b', 'c'));
    expect(await readdir(join(inside, 'a', 'b'))).toEqual(['c']);
  });
});
