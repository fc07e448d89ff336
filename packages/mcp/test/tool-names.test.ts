import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { assignToolNames, keepToolNames, readToolNames, TOOL_NAMES_FILE } from '../src/tool-names.ts';

const named = (pairs: Array<[string, string]>) => pairs.map(([id, taskName]) => ({ id, taskName }));
const asObject = (names: Map<string, string>) => Object.fromEntries(names);

describe('tool names', () => {
  it('are made from task names, unique, never a generic tool, in id order whatever the listing order', () => {
    const workflows = named([
      ['e', '???'],
      ['a', 'Play song!'],
      ['d', 'Grüße senden'],
      ['b', 'play-song'],
      ['c', 'replay'],
    ]);
    const names = assignToolNames(workflows, new Set(['replay']));
    expect(asObject(names)).toEqual({
      a: 'play_song',
      b: 'play_song_2',
      c: 'replay_2',
      d: expect.stringMatching(/^gru_e_senden_[0-9a-f]{6}$/),
      e: expect.stringMatching(/^workflow_[0-9a-f]{6}$/),
    });
    expect(asObject(assignToolNames([...workflows].reverse(), new Set(['replay'])))).toEqual(asObject(names));
  });

  it('stay with their workflow when a colliding one is added, even one that sorts first', () => {
    const before = assignToolNames(named([['20261122-play-song', 'play song']]), new Set());
    expect(before.get('20261122-play-song')).toBe('play_song');
    const after = assignToolNames(
      named([
        ['20261122-play-song', 'play song'],
        ['00000000-evil', 'Play-Song!'],
      ]),
      new Set(),
      before,
    );
    expect(asObject(after)).toEqual({ '20261122-play-song': 'play_song', '00000000-evil': 'play_song_2' });
  });

  it('are given anew when the task is renamed, and a cut name with its number still fits', () => {
    const long = 'x'.repeat(80);
    const first = assignToolNames(
      named([
        ['a', long],
        ['b', long],
      ]),
      new Set(),
    );
    expect(first.get('b')).toBe(`${'x'.repeat(62)}_2`);
    const again = assignToolNames(
      named([
        ['b', long],
        ['a', 'renamed task'],
        ['c', long],
      ]),
      new Set(),
      first,
    );
    expect(asObject(again)).toEqual({ a: 'renamed_task', b: `${'x'.repeat(62)}_2`, c: 'x'.repeat(64) });
  });
});

describe('kept tool names', () => {
  it('are written to the data root and read back, keeping names of workflows not listed now', async () => {
    const home = await tempDir('mime-tool-names-');
    expect(await readToolNames(home)).toEqual(new Map());
    await keepToolNames(home, new Map([['gone', 'old_tool']]), new Map([['a', 'play_song']]));
    expect(JSON.parse(await readFile(join(home, TOOL_NAMES_FILE), 'utf8'))).toEqual({
      a: 'play_song',
      gone: 'old_tool',
    });
    expect(await readToolNames(home)).toEqual(
      new Map([
        ['a', 'play_song'],
        ['gone', 'old_tool'],
      ]),
    );
  });

  it('start from none when the file is damaged', async () => {
    const home = await tempDir('mime-tool-names-');
    await writeFile(join(home, TOOL_NAMES_FILE), '{"a": 3}');
    expect(await readToolNames(home)).toEqual(new Map());
  });
});
