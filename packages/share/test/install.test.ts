import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { readCatalog } from '../src/catalog.ts';
import { installPackage } from '../src/install.ts';
import { packWorkflow } from '../src/pack.ts';

async function packed(): Promise<{ out: string; home: string }> {
  const root = await tempDir('mime-share-');
  await copyWorkflow('play-song', undefined, { into: root, as: 'wf' });
  await packWorkflow(join(root, 'wf'), { out: join(root, 'site'), id: 'play' });
  return { out: join(root, 'site'), home: join(root, 'home') };
}

describe('installPackage', () => {
  it('installs nothing and leaves no quarantine behind when the answer is no', async () => {
    const { out, home } = await packed();
    let asked = 0;
    await expect(
      installPackage(
        { archive: join(out, 'play.zip') },
        {
          home,
          confirm: async (preview) => {
            asked += 1;
            expect(preview).toMatchObject({ id: 'play', files: 2, replaces: false });
            return false;
          },
        },
      ),
    ).rejects.toMatchObject({ code: 'MIME_PACKAGE_NOT_CONFIRMED' });
    expect(asked).toBe(1);
    expect(existsSync(join(home, 'workflows'))).toBe(false);
    expect(await readdir(join(home, '.mime-install'))).toEqual([]);
  });

  it('names the items of a catalog that has no such id', async () => {
    const { out, home } = await packed();
    await expect(
      installPackage(
        { catalog: join(out, 'manifest.json'), id: 'nope' },
        { home, confirm: async () => true },
      ),
    ).rejects.toMatchObject({
      code: 'MIME_CATALOG_INVALID',
      message: `${join(out, 'manifest.json')} has no item "nope" (its items: play); pass one of them to --id`,
    });
  });

  it('refuses a zip whose sha256 is not the one given', async () => {
    const { out, home } = await packed();
    await expect(
      installPackage(
        { archive: join(out, 'play.zip'), sha256: '0'.repeat(64) },
        { home, confirm: async () => true },
      ),
    ).rejects.toMatchObject({
      code: 'MIME_PACKAGE_TAMPERED',
      message: expect.stringContaining(`not the ${'0'.repeat(64)} given`),
    });
  });

  it('gives up on a catalog server that does not answer in time, and on one that sends too much', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/big.json') response.end(Buffer.alloc(9 * 1024 * 1024, 32));
      // Else: never answers.
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(readCatalog(`${url}/manifest.json`, { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'MIME_CATALOG_INVALID',
        message: `catalog ${url}/manifest.json: cannot be downloaded (no answer in 300 ms); check the URL and the network`,
      });
      await expect(readCatalog(`${url}/big.json`)).rejects.toMatchObject({
        code: 'MIME_CATALOG_INVALID',
        message: `catalog ${url}/big.json: larger than ${8 * 1024 * 1024} bytes; mime reads no more`,
      });
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
