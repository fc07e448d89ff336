/**
 * `mime list`'s last-run column for a run without a summary: `running` while the process its journal
 * names lives, `interrupted` once it is gone, `unfinished` when it cannot be told (an older mime).
 */
import { join } from 'node:path';
import { listHome } from '@mime-desktop/schema';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import {
  endedProcess,
  liveProcess,
  runStartLine,
  writeUnfinishedRun,
} from '@mime-desktop/test-support/unfinished-run';
import { describe, expect, it } from 'vitest';
import { renderInventory } from '../src/commands/list.ts';

const tempDirs = useTempDirs();

describe('mime list', () => {
  it('says a run without a summary running, interrupted, or unfinished when it cannot tell', async () => {
    const home = await tempDirs('mime-home-');
    const runners = { live: liveProcess(), killed: endedProcess(), older: undefined };
    for (const [name, runner] of Object.entries(runners)) {
      const workflow = await copyWorkflow('play-song', undefined, {
        as: name,
        into: join(home, 'workflows'),
      });
      await writeUnfinishedRun(join(workflow, '.replay', 'run-1'), [runStartLine(runner)]);
    }
    const rows = renderInventory(await listHome(home)).split('\n');
    const lastRun = (name: string) =>
      rows.find((row) => row.startsWith(name))?.match(/1\s+(\S+) 2026-11-26/)?.[1];
    expect(lastRun('live')).toBe('running');
    expect(lastRun('killed')).toBe('interrupted');
    expect(lastRun('older')).toBe('unfinished');
  });
});
