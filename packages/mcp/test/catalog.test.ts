/**
 * The catalog follows the data root by watching it: ten workflows moved in at once are one change, a
 * run written inside a workflow is none, an edited schema.json renames its tool; nothing is polled.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { copyWorkflow, useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowCatalog } from '../src/catalog.ts';

const testDir = useTestDir('mime-catalog-');
let home: string;
let catalog: WorkflowCatalog | undefined;

beforeEach(() => {
  home = testDir();
});
// Registered after the rig's hook, so it runs before the folder is removed.
afterEach(() => {
  catalog?.stop();
  catalog = undefined;
});

/** A copy of the demo workflow at `dir`, named `taskName`. */
async function workflowAt(dir: string, taskName: string): Promise<void> {
  await copyWorkflow(
    'play-song',
    (schema) => {
      schema.task_name = taskName;
    },
    { into: dirname(dir), as: basename(dir) },
  );
}

const until = (check: () => boolean, what: string) => waitUntil(check, { timeoutMs: 10_000, what });

describe('the workflow catalog', () => {
  it('hears ten workflows moved in at once as one change, a run written inside one as none', async () => {
    await workflowAt(join(home, 'workflows', 'first'), 'first');
    catalog = new WorkflowCatalog({ home, debounceMs: 200 });
    await catalog.start();
    expect(catalog.polling).toBe(false);
    let changes = 0;
    catalog.onChange(() => {
      changes += 1;
    });
    const staging = join(home, 'staging');
    for (let i = 0; i < 10; i += 1) await workflowAt(join(staging, `w${i}`), `burst ${i}`);
    for (let i = 0; i < 10; i += 1) await rename(join(staging, `w${i}`), join(home, 'workflows', `w${i}`));
    await until(() => catalog?.entries.length === 11 && changes > 0, 'the ten new workflows are tools');
    expect(catalog.find('burst_9')?.id).toBe('w9');

    // A run inside a workflow is no change; removing a workflow is the next one. Had the burst made
    // a second change, it would have come before this one.
    await mkdir(join(home, 'workflows', 'w0', '.replay', 'run-1'), { recursive: true });
    await writeFile(join(home, 'workflows', 'w0', '.replay', 'run-1', 'events.jsonl'), '{}\n');
    await rm(join(home, 'workflows', 'w1'), { recursive: true });
    await until(() => catalog?.entries.length === 10, 'the removed workflow is gone');
    expect(changes).toBe(2);
  });

  it("follows an edited schema.json: the workflow's tool takes its new name, the others stay as they are", async () => {
    await workflowAt(join(home, 'workflows', 'song'), 'play song');
    await workflowAt(join(home, 'workflows', 'other'), 'other');
    catalog = new WorkflowCatalog({ home, debounceMs: 50 });
    await catalog.start();
    expect(catalog.find('play_song')?.id).toBe('song');
    const other = catalog.find('other');
    const file = join(home, 'workflows', 'song', 'schema.json');
    const schema = JSON.parse(await readFile(file, 'utf8'));
    schema.task_name = 'play a tune';
    // Written as an editor saving atomically would: a temp file renamed over it.
    await writeFile(`${file}.tmp`, JSON.stringify(schema));
    await rename(`${file}.tmp`, file);
    await until(() => catalog?.find('play_a_tune') !== undefined, 'the tool is renamed');
    expect(catalog.find('play_song')).toBeUndefined();
    // Not read again: the same entry, so a server keeps its tool registered as it was.
    expect(catalog.find('other')).toBe(other);
  });

  it('sees workflows/ made after it started', async () => {
    catalog = new WorkflowCatalog({ home, debounceMs: 50 });
    await catalog.start();
    expect(catalog.entries).toEqual([]);
    await workflowAt(join(home, 'staging'), 'late');
    await mkdir(join(home, 'workflows'));
    await rename(join(home, 'staging'), join(home, 'workflows', 'late'));
    await until(() => catalog?.find('late') !== undefined, 'the late workflow is a tool');
  });
});
