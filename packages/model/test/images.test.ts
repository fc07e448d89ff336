import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { imagePart } from '../src/index.ts';
import { startServerAndClient } from './model-fixture.ts';

/** A 3x2 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEklEQVR4nGP4z8DAwMDAwMDAAAkLAf8Xb3SZAAAAAElFTkSuQmCC',
  'base64',
);

describe('imagePart', () => {
  it('encodes PNG bytes as a data URL, from a Buffer or a Uint8Array view', () => {
    const view = new Uint8Array(PNG.buffer.slice(PNG.byteOffset, PNG.byteOffset + PNG.byteLength));
    expect(imagePart(view)).toEqual(imagePart(PNG));
    expect(imagePart(PNG, { detail: 'high' })).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}`, detail: 'high' },
    });
  });

  it('reaches the server, where a handler can decode the screenshot', async () => {
    const { server, client } = await startServerAndClient();
    server.setHandler((request) => {
      const part = request.body?.messages
        ?.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .find((p) => p.type === 'image_url');
      const png = Buffer.from(part?.image_url?.url.replace('data:image/png;base64,', '') ?? '', 'base64');
      return { type: 'json', value: { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } };
    });

    const result = await client.structured({
      name: 'size',
      schema: z.object({ width: z.int(), height: z.int() }),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'How big is it?' }, imagePart(PNG)] }],
    });

    expect(result.value).toEqual({ width: 3, height: 2 });
  });
});
