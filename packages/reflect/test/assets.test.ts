import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifest } from '@mime-desktop/schema';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { markedPath } from '../src/assets.ts';

describe('recording assets', () => {
  it('name the marked copy apart from the screenshot, whatever its extension', () => {
    expect(markedPath('screenshots/3.png')).toBe('screenshots/3_marked.png');
    expect(markedPath('screenshots/3.PNG')).toBe('screenshots/3_marked.png');
    for (const name of ['screenshots/0.img', 'screenshots/0', 'screenshots/0.png.bak']) {
      expect(markedPath(name)).not.toBe(name);
    }
  });

  it('refuse a manifest of more events than any recording holds, before checking any event', async () => {
    const file = join(await tempDir('mime-events-'), 'manifest.jsonl');
    // Not one valid event: were they checked, this would be refused for each of them instead.
    const line = JSON.stringify({ action_type: 'hover', action_details: {}, screenshot: null, timestamp: 1 });
    await writeFile(file, `${`${line}\n`.repeat(300_000)}`);
    await expect(readManifest(file)).rejects.toMatchObject({
      code: 'MIME_FILE_UNREADABLE',
      message: expect.stringContaining('300000 events; mime reads a recording of at most 10000'),
    });
  });
});
