/**
 * `mime pack` and `mime install` as a user runs them: real workflow folders, real zips, a real HTTP
 * server on 127.0.0.1 serving a catalog in the shape of ai_mime's marketplace (its `docs/manifest.json`
 * and `scripts/package_workflows.py`, prakhar1114/ai_mime_marketplace at 78f63b3).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { readArchive, writeArchive } from '@mime-desktop/share';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';

const MARKETPLACE = join(REPO_ROOT, 'fixtures', 'ai-mime-marketplace');

/** Every file under `dir`, relative to it, sorted. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** A zip of a folder's files at its root, as ai_mime's marketplace packs a workflow. */
async function zipFolder(dir: string): Promise<Buffer> {
  const files = await filesOf(dir);
  return writeArchive(
    await Promise.all(files.map(async (path) => ({ path, data: await readFile(join(dir, path)) }))),
  );
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A static file server on 127.0.0.1 for `dir`, closed after the test. */
async function serve(dir: string): Promise<{ url: string; server: Server; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer(async (request, response) => {
    hits.push(request.url ?? '');
    try {
      const data = await readFile(join(dir, decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/')));
      response.writeHead(200, { 'content-length': data.length }).end(data);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, hits };
}

/** A zip of `entries` as given: any name, any mode (0o120777 makes a symbolic link). */
async function craftedZip(entries: Array<{ name: string; data: string; mode?: number }>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries)
    zip.addBuffer(Buffer.from(entry.data), entry.name, { mode: entry.mode ?? 0o100644 });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('mime pack', () => {
  it('writes one zip of the workflow and its frames, with sizes and checksums, and nothing of runs, logs, locks, drafts or backups', async () => {
    const dir = await copyWorkflow('play-song-recorded');
    await mkdir(join(dir, '.replay', 'run-1'), { recursive: true });
    await writeFile(join(dir, '.replay', 'run-1', 'events.jsonl'), '{"typed":"secret"}\n');
    await writeFile(join(dir, 'schema.20261125T080000123Z.json'), '{}');
    await writeFile(join(dir, 'replay.log'), 'log');
    await mkdir(join(dir, '.mime.lock'));
    const out = await tempDir('mime-pack-out-');

    const result = await runMime([
      'pack',
      dir,
      '--out',
      out,
      '--id',
      'play-song',
      '--side-effect',
      'Plays a song',
    ]);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(join(out, 'play-song.zip'));
    const zip = await readFile(join(out, 'play-song.zip'));
    const entries = await readArchive(zip, 'play-song.zip');
    const paths = entries.map((e) => e.path).sort();
    expect(paths).toEqual(
      [
        'manifest.jsonl',
        'metadata.json',
        'mime-package.json',
        'schema.json',
        'workflow.schema.json',
        ...['0', '0_marked', '1', '2', '3', '3_marked', '4', '5'].map((n) => `screenshots/${n}.png`),
      ].sort(),
    );
    const manifest = JSON.parse(entries.find((e) => e.path === 'mime-package.json')?.data.toString() ?? '');
    const schema = entries.find((e) => e.path === 'schema.json')?.data ?? Buffer.alloc(0);
    expect(manifest.files).toContainEqual({
      path: 'schema.json',
      size_bytes: schema.length,
      sha256: sha256(schema),
    });
    expect(manifest).toMatchObject({ id: 'play-song', name: 'play song', side_effects: ['Plays a song'] });
    expect(zip.includes(Buffer.from(dir))).toBe(false);
    const catalog = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(catalog.items).toEqual([
      expect.objectContaining({
        id: 'play-song',
        package_url: 'play-song.zip',
        sha256: sha256(zip),
        size_bytes: zip.length,
        requires_login: null,
        side_effects: ['Plays a song'],
        stops_before_payment: null,
        safety_notes: [],
      }),
    ]);
  });
});

describe('mime install', () => {
  it('round-trips a packed workflow into another home: every file byte for byte, and it validates', async () => {
    const dir = await copyWorkflow('play-song-recorded', (schema) => {
      schema.setup = { command: 'demo-player --kiosk', window: { title: 'Demo player' } };
    });
    // ai_mime's Pass C plan says which paths a run may touch: the preview shows them.
    const plan = {
      user_filesystem_access: {
        readable_roots: [
          { path: '{music_dir}', reason: 'Songs are read from here.', approval_required: false },
        ],
        writable_roots: [
          { path: '/tmp/playlists', reason: 'The playlist is saved.', approval_required: true },
        ],
      },
      constants: { music_dir: '/home/me/Music' },
    };
    await writeFile(join(dir, 'optimized_plan.json'), `${JSON.stringify(plan, null, 2)}\n`);
    const out = await tempDir('mime-pack-out-');
    const home = await tempDir('mime-home-');
    expect((await runMime(['pack', dir, '--out', out, '--id', 'play-song'])).exitCode).toBe(0);

    const result = await runMime(['install', join(out, 'play-song.zip'), '--home', home, '--yes']);

    expect(result.exitCode, result.stderr).toBe(0);
    const installed = join(home, 'workflows', 'play-song');
    expect(result.stdout.trim()).toBe(installed);
    expect(result.stderr).toContain('params:        song_name (string, required)');
    expect(result.stderr).toContain('every file against its manifest');
    expect(result.stderr).toContain('starts:        demo-player --kiosk');
    expect(result.stderr).toContain('reads files:   /home/me/Music (Songs are read from here.)');
    expect(result.stderr).toContain('writes files:  /tmp/playlists (The playlist is saved.; asks first)');
    // Not the reflect drafts, nor the OCR cache reflect leaves (hidden, as a machine's runs and locks).
    const kept = (await filesOf(dir)).filter(
      (f) => f !== 'schema.draft.json' && f !== 'step_cards.json' && !f.startsWith('.cache/'),
    );
    expect(await filesOf(dir)).toContainEqual(expect.stringMatching(/^\.cache\/ocr\//));
    expect(await filesOf(installed)).toEqual(kept);
    for (const file of kept)
      expect(await readFile(join(installed, file))).toEqual(await readFile(join(dir, file)));
    const validated = await runMime(['validate', installed]);
    expect(validated.exitCode, validated.stderr).toBe(0);

    const again = await runMime(['install', join(out, 'play-song.zip'), '--home', home, '--yes']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('[MIME_PACKAGE_EXISTS]');
    const forced = await runMime(['install', join(out, 'play-song.zip'), '--home', home, '--yes', '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    const backup = /kept in (\S+)/.exec(forced.stderr)?.[1] ?? '';
    expect(await readFile(join(backup, 'schema.json'))).toEqual(await readFile(join(dir, 'schema.json')));
  });

  it('refuses a zip with one byte changed, saying so, and installs nothing', async () => {
    const dir = await copyWorkflow('play-song-recorded');
    const out = await tempDir('mime-pack-out-');
    const home = await tempDir('mime-home-');
    expect((await runMime(['pack', dir, '--out', out, '--id', 'play-song'])).exitCode).toBe(0);
    const zip = await readFile(join(out, 'play-song.zip'));
    // The middle of the zip lies inside a frame's data (frames are nearly all of its bytes).
    zip[zip.length >> 1] = (zip[zip.length >> 1] ?? 0) ^ 0x01;
    await writeFile(join(out, 'play-song.zip'), zip);

    const direct = await runMime(['install', join(out, 'play-song.zip'), '--home', home, '--yes']);
    const viaCatalog = await runMime([
      'install',
      join(out, 'manifest.json'),
      '--id',
      'play-song',
      '--home',
      home,
      '--yes',
    ]);

    expect(direct.exitCode).toBe(2);
    expect(direct.stderr).toMatch(/\[MIME_PACKAGE_TAMPERED\] .*changed or (damaged|cut short) on the way/);
    expect(viaCatalog.exitCode).toBe(2);
    expect(viaCatalog.stderr).toMatch(/\[MIME_PACKAGE_TAMPERED\] .*its sha256 is \w+ where its catalog says/);
    expect(existsSync(join(home, 'workflows'))).toBe(false);
  });

  it('refuses a zip holding ../x or a symbolic link, naming the entry, and writes nothing', async () => {
    const home = await tempDir('mime-home-');
    const dir = await tempDir('mime-zips-');
    // yazl refuses to write `..`: the name is patched in place (same length; no checksum covers names).
    const escaping = await craftedZip([
      { name: 'schema.json', data: '{}' },
      { name: 'aa/x', data: 'outside' },
    ]);
    await writeFile(
      join(dir, 'escape.zip'),
      Buffer.from(escaping.toString('latin1').replaceAll('aa/x', '../x'), 'latin1'),
    );
    await writeFile(
      join(dir, 'link.zip'),
      await craftedZip([{ name: 'schema.json', data: '/etc/passwd', mode: 0o120777 }]),
    );

    const escaped = await runMime(['install', join(dir, 'escape.zip'), '--home', home, '--yes']);
    const link = await runMime(['install', join(dir, 'link.zip'), '--home', home, '--yes']);

    expect(escaped.exitCode).toBe(2);
    expect(escaped.stderr).toContain('[MIME_PACKAGE_UNSAFE]');
    expect(escaped.stderr).toContain('entry "../x": its path is unsafe (the path leaves the folder (..))');
    expect(link.exitCode).toBe(2);
    expect(link.stderr).toContain('entry "schema.json": a symbolic link');
    expect(existsSync(join(home, 'workflows'))).toBe(false);
    expect(existsSync(join(home, 'x'))).toBe(false);
    expect(existsSync(join(home, '.mime-install'))).toBe(false);
  });

  it('installs from a marketplace-style catalog on 127.0.0.1, a mime package and an ai_mime zip, after the preview', async () => {
    const site = await tempDir('mime-site-');
    const home = await tempDir('mime-home-');
    const dir = await copyWorkflow('play-song-recorded');
    expect(
      (await runMime(['pack', dir, '--out', site, '--id', 'play-song', '--author', 'tests'])).exitCode,
    ).toBe(0);
    // ai_mime's marketplace zips a workflow folder's files at the zip's root, and lists it in its manifest.json.
    const aiMime = await zipFolder(join(MARKETPLACE, 'order-food-for-delivery'));
    await mkdir(join(site, 'packages'));
    await writeFile(join(site, 'packages', 'order-food-for-delivery.zip'), aiMime);
    const catalog = JSON.parse(await readFile(join(site, 'manifest.json'), 'utf8'));
    catalog.items.push({
      id: 'order-food-for-delivery',
      name: 'Order Food For Delivery',
      description: 'Order a dish from a restaurant.',
      type: 'workflow',
      version: '0.1.0',
      author: 'AI Mime',
      tags: ['food'],
      icon: 'icons/ai-mime-icon.png',
      package_url: 'packages/order-food-for-delivery.zip',
      sha256: sha256(aiMime),
      size_bytes: aiMime.length,
      requires_login: true,
      side_effects: ['Adds food to cart and selects a saved delivery address.'],
      stops_before_payment: true,
      safety_notes: ['Stops before payment or final purchase confirmation.'],
    });
    await writeFile(join(site, 'manifest.json'), JSON.stringify(catalog));
    const { url, server, hits } = await serve(site);
    try {
      const mime = await runMime([
        'install',
        `${url}/manifest.json`,
        '--id',
        'play-song',
        '--home',
        home,
        '--yes',
      ]);
      const food = await runMime([
        'install',
        `${url}/manifest.json`,
        '--id',
        'order-food-for-delivery',
        '--home',
        home,
        '--yes',
      ]);

      expect(mime.exitCode, mime.stderr).toBe(0);
      expect(mime.stderr).toContain(`from:          ${url}/play-song.zip`);
      expect(mime.stderr).toMatch(
        /checked: +size and sha256 \w{64} as its catalog says; every file against its manifest/,
      );
      expect(food.exitCode, food.stderr).toBe(0);
      expect(food.stderr).toContain(
        'install "order food for delivery" (order-food-for-delivery 0.1.0, by AI Mime)',
      );
      expect(food.stderr).toContain('login needed:  yes');
      expect(food.stderr).toContain('side effects:  Adds food to cart and selects a saved delivery address.');
      expect(food.stderr).toContain('stops before payment: yes');
      expect(food.stderr).toContain('no package manifest (not made by mime pack)');
      expect(hits).toContain('/packages/order-food-for-delivery.zip');
      for (const id of ['play-song', 'order-food-for-delivery']) {
        const check = await runMime(['validate', join(home, 'workflows', id)]);
        expect(check.exitCode, check.stderr).toBe(0);
      }
      // The catalog's safety facts are written into the installed workflow, which mime list shows.
      const listed = await runMime(['list', '--home', home]);
      expect(listed.stdout).toMatch(/order-food-for-delivery .* login, 1 side effect, stops before payment/);
      const foodFiles = await filesOf(join(home, 'workflows', 'order-food-for-delivery'));
      expect(foodFiles).toEqual(await filesOf(join(MARKETPLACE, 'order-food-for-delivery')));
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('refuses a workflow that does not validate, and asks on a terminal only: no terminal and no --yes is refused', async () => {
    const home = await tempDir('mime-home-');
    const dir = await tempDir('mime-zips-');
    await writeFile(join(dir, 'upload.zip'), await zipFolder(join(MARKETPLACE, 'upload-to-drive-folder')));
    const invalid = await runMime(['install', join(dir, 'upload.zip'), '--home', home, '--yes']);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain('[MIME_PACKAGE_INVALID]');
    expect(invalid.stderr).toContain('{folder_name} names no declared param');

    await writeFile(join(dir, 'food.zip'), await zipFolder(join(MARKETPLACE, 'order-food-for-delivery')));
    const unasked = await runMime(['install', join(dir, 'food.zip'), '--home', home]);
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toContain('stdin is not a terminal');
    expect(unasked.stderr).toContain('--yes');
    expect(existsSync(join(home, 'workflows'))).toBe(false);
  });
});
