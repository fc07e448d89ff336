import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/errors.ts';
import { parseManifestEvent, readManifest, readRecordingMetadata } from '../src/recording.ts';

const compat = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'compat', 'ai_mime');

describe('recording manifest', () => {
  it('reads the published ai_mime manifest, Button.left and the null end marker included', async () => {
    const lines = await readManifest(join(compat, 'manifest.jsonl'));
    expect(lines.map(({ event }) => event.action_type)).toEqual([
      'type',
      'click',
      'click',
      'type',
      'click',
      null,
    ]);
    expect(lines[1]?.event).toEqual({
      action_type: 'click',
      action_details: { button: 'left', x: 516.38671875, y: 263.48828125 },
      screenshot: 'screenshots/1.png',
      timestamp: 1767877126.540363,
      details: null,
    });
    expect(lines[0]?.event.action_details).toEqual({ text: 'spotify', secret: false });
  });

  it('maps legacy right clicks and key names', () => {
    const right = parseManifestEvent({
      action_type: 'click',
      action_details: { button: 'Button.right', x: 1, y: 2, pressed: true },
      screenshot: 'screenshots/0.png',
      timestamp: 1,
    });
    expect(right).toMatchObject({
      ok: true,
      event: { action_type: 'right_click', action_details: { button: 'right' } },
    });
    const key = parseManifestEvent({
      action_type: 'key',
      action_details: { key: 'Key.enter' },
      screenshot: 's.png',
      timestamp: 1,
    });
    expect(key).toMatchObject({ ok: true, event: { action_details: { key: 'enter' } } });
  });

  it('names every bad line of a corrupt manifest', async () => {
    const dir = await tempDir('mime-manifest-');
    const file = join(dir, 'manifest.jsonl');
    await writeFile(
      file,
      [
        '{"action_type":"click","action_details":{"button":"left","x":1,"y":2},"screenshot":"screenshots/0.png","timestamp":1}',
        '{"action_type":"teleport","action_details":{},"screenshot":"screenshots/1.png","timestamp":2}',
        '{"action_type":"key","action_details":{"key":"ctrl+warp"},"screenshot":"screenshots/2.png","timestamp":3}',
        '{"action_type":"type","action_details":{"text":"hunter2","secret":true},"screenshot":"screenshots/3.png","timestamp":4}',
        '',
      ].join('\n'),
    );
    const error = await readManifest(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([
      { path: 'line 2: action_type', message: expect.stringContaining('Invalid discriminator value') },
      { path: 'line 3: action_details.key', message: expect.stringContaining('unknown key "warp"') },
      {
        path: 'line 4: action_details.text',
        message: 'secret typing must not store its text; leave text empty',
      },
    ]);
  });

  it('validates metadata and reports missing fields', async () => {
    const dir = await tempDir('mime-meta-');
    const good = join(dir, 'good.json');
    await writeFile(
      good,
      JSON.stringify({
        name: 'play song',
        created_at: '2026-11-22T10:00:00Z',
        screen: { width: 1280, height: 800 },
      }),
    );
    expect(await readRecordingMetadata(good)).toMatchObject({
      name: 'play song',
      description: '',
      screen: { scale_factor: 1 },
    });
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ description: 'x', created_at: 'yesterday' }));
    await expect(readRecordingMetadata(bad)).rejects.toThrow(
      /name: required: expected string\n {2}created_at: Invalid ISO datetime/,
    );
  });
});
