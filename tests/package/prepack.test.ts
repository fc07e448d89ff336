/**
 * `pnpm pack` of a package that was not built fails loudly (its `prepack`), instead of a tarball of
 * package.json alone. Run on a copy of a package laid out as in the repository.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PUBLISHED_PACKAGES } from '@mime-desktop/test-support/packed-mime';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

let pkg: string;
const env = { PATH: `${join(REPO_ROOT, 'node_modules', '.bin')}:${process.env.PATH}` };
const pack = () =>
  execa('pnpm', ['pack', '--pack-destination', join(pkg, '..', '..')], { cwd: pkg, env, reject: false });

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'mime-prepack-'));
  pkg = join(root, 'packages', 'vision');
  await mkdir(join(root, 'scripts'), { recursive: true });
  // As at the repository's root: its scripts are ES modules.
  await writeFile(join(root, 'package.json'), '{ "private": true, "type": "module" }\n');
  await cp(join(REPO_ROOT, 'scripts', 'check-built.ts'), join(root, 'scripts', 'check-built.ts'));
  await cp(join(REPO_ROOT, 'packages', 'vision', 'package.json'), join(pkg, 'package.json'));
  await cp(join(REPO_ROOT, 'packages', 'vision', 'src'), join(pkg, 'src'), { recursive: true });
});

describe('pnpm pack of a package', () => {
  it('refuses without a build, with a partial one, and with one older than its sources', async () => {
    const unbuilt = await pack();
    expect(unbuilt.exitCode).not.toBe(0);
    expect(unbuilt.stderr + unbuilt.stdout).toContain(
      'error: packages/vision: dist/ is missing: run `pnpm build` at the repository root, then pack again',
    );

    // A build of one file only.
    await mkdir(join(pkg, 'dist'));
    await cp(join(pkg, 'src', 'index.ts'), join(pkg, 'dist', 'index.js'));
    const partial = await pack();
    expect(partial.exitCode).not.toBe(0);
    expect(partial.stderr + partial.stdout).toMatch(
      /error: packages\/vision: dist\/(?!index)\w+\.js is missing/,
    );

    // Every source built, but one changed after the build.
    for (const name of await readdir(join(pkg, 'src'))) {
      await cp(join(pkg, 'src', name), join(pkg, 'dist', name.replace(/\.ts$/, '.js')));
    }
    const later = new Date(Date.now() + 60_000);
    await utimes(join(pkg, 'src', 'index.ts'), later, later);
    const older = await pack();
    expect(older.stderr + older.stdout).toContain(
      'error: packages/vision: dist/index.js is older than src/index.ts',
    );

    await utimes(join(pkg, 'dist', 'index.js'), later, new Date(Date.now() + 120_000));
    // Built: the check passes (the packed packages of the consumer test go through it too).
    const check = await execa('tsx', ['../../scripts/check-built.ts'], { cwd: pkg, env, reject: false });
    expect(check.exitCode, check.stderr).toBe(0);
  });
});

describe('releases', () => {
  it('are versioned together by changesets, each package with its CHANGELOG.md', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'mime-changeset-')), 'status.json');
    const status = await execa('pnpm', ['exec', 'changeset', 'status', '--output', out], {
      cwd: REPO_ROOT,
      reject: false,
    });
    expect(status.exitCode, status.stderr).toBe(0);
    const { releases } = JSON.parse(await readFile(out, 'utf8')) as {
      releases: Array<{ name: string; type: string }>;
    };
    const names = PUBLISHED_PACKAGES;
    // One fixed group of every published package: a change bumps them all alike; the private test
    // support is never released.
    const config = JSON.parse(await readFile(join(REPO_ROOT, '.changeset', 'config.json'), 'utf8'));
    expect([...config.fixed[0]].sort()).toEqual(names.map((n) => `@mime-desktop/${n}`));
    const bumped = releases.filter((r) => r.type !== 'none');
    if (bumped.length > 0) {
      expect(bumped.map((r) => r.name).sort()).toEqual(names.map((n) => `@mime-desktop/${n}`));
      expect(new Set(bumped.map((r) => r.type)).size).toBe(1);
    }
    for (const name of names) {
      const changelog = await readFile(join(REPO_ROOT, 'packages', name, 'CHANGELOG.md'), 'utf8');
      expect(changelog).toMatch(new RegExp(`^# @mime-desktop/${name}\n\n## \\d+\\.\\d+\\.\\d+\n`));
    }
  });
});
