import { describe, expect, it } from 'vitest';
import { readArchive, writeArchive } from '../src/archive.ts';
import { leftOutReason } from '../src/contents.ts';

const file = (path: string, bytes: number) => ({ path, data: Buffer.alloc(bytes, 7) });

describe('readArchive', () => {
  it('reads back what writeArchive wrote, folders implied', async () => {
    const files = [file('schema.json', 10), file('screenshots/0.png', 2000)];
    expect(await readArchive(await writeArchive(files), 'a.zip')).toEqual(files);
  });

  it('refuses, never skips, an archive past its limits: entries, one file, the sum', async () => {
    const zip = await writeArchive([file('a', 600), file('b', 600), file('c', 600)]);
    await expect(readArchive(zip, 'a.zip', { maxEntries: 2 })).rejects.toThrow(
      'a.zip: 3 entries, more than the 2 a package may hold; nothing was installed',
    );
    await expect(readArchive(zip, 'a.zip', { maxEntryBytes: 500 })).rejects.toThrow(
      'a.zip, entry "a": 600 bytes, more than the 500 a file may have',
    );
    await expect(readArchive(zip, 'a.zip', { maxTotalBytes: 1000 })).rejects.toMatchObject({
      code: 'MIME_PACKAGE_UNSAFE',
      message: 'a.zip: unpacks to more than 1000 bytes; nothing was installed',
    });
  });

  it('refuses what is not a zip', async () => {
    await expect(readArchive(Buffer.from('not a zip'), 'a.zip')).rejects.toMatchObject({
      code: 'MIME_PACKAGE_UNSAFE',
      message: expect.stringMatching(/^a\.zip: not a zip archive/),
    });
  });
});

describe('leftOutReason', () => {
  it('leaves out runs, locks, logs, drafts and backups, and keeps the workflow, its recording and frames', () => {
    const kept = [
      'schema.json',
      'manifest.jsonl',
      'metadata.json',
      'optimized_plan.json',
      'screenshots/0.png',
      'skills/x/SKILL.md',
    ];
    const left = [
      '.replay/r1/events.jsonl',
      '.mime.lock/x',
      '.batch/b/rows.jsonl',
      'schema.draft.json',
      'step_cards.json',
      'schema.20261125T080000123Z.json',
      'manifest.20261125T080000123Z-2.jsonl',
      'replay.log',
      'runs/20260524T054242Z-6ba8291b/data.md',
      'agent/agent_sessions.json',
      'schema.json.mime-new',
    ];
    expect(kept.filter((p) => leftOutReason(p) !== null)).toEqual([]);
    expect(left.filter((p) => leftOutReason(p) === null)).toEqual([]);
  });
});
