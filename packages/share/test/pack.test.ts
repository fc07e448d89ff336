import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { packWorkflow } from '../src/pack.ts';

async function workflow(): Promise<string> {
  const root = await tempDir('mime-pack-');
  await copyWorkflow('play-song', undefined, { into: root, as: 'wf' });
  return root;
}

describe('packWorkflow', () => {
  it('refuses a workflow holding a symbolic link, naming it, and writes nothing', async () => {
    const root = await workflow();
    await mkdir(join(root, 'wf', 'screenshots'), { recursive: true });
    await symlink('/etc/passwd', join(root, 'wf', 'screenshots', '9.png'));
    await expect(packWorkflow(join(root, 'wf'), { out: join(root, 'site') })).rejects.toMatchObject({
      code: 'MIME_PACK_REFUSED',
      message: `${join(root, 'wf', 'screenshots', '9.png')} is a symbolic link; a package holds regular files only: replace the link with a copy of its file`,
    });
    expect(existsSync(join(root, 'site'))).toBe(false);
  });

  it('refuses an --out whose manifest.json is not a catalog before writing the zip', async () => {
    const root = await workflow();
    await mkdir(join(root, 'site'));
    await writeFile(join(root, 'site', 'manifest.json'), '{"manifest_version": 3}');
    await expect(packWorkflow(join(root, 'wf'), { out: join(root, 'site') })).rejects.toMatchObject({
      code: 'MIME_CATALOG_INVALID',
      message: expect.stringContaining('is not a package catalog (items: '),
    });
    expect(await readdir(join(root, 'site'))).toEqual(['manifest.json']);
  });

  it('refuses an id that cannot be a folder name', async () => {
    const root = await workflow();
    await expect(packWorkflow(join(root, 'wf'), { out: root, id: '../up' })).rejects.toMatchObject({
      code: 'MIME_PACK_REFUSED',
    });
  });
});
