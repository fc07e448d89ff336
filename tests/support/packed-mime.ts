/**
 * mime as published: every package built (`pnpm build`) and packed (`pnpm pack`, workspace versions
 * resolved, publishConfig applied), then installed with npm outside the workspace.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './run-mime.ts';

/** The folders under packages/ of every published package (`@mime-desktop/<name>`). */
export const PUBLISHED_PACKAGES = [
  'batch',
  'cli',
  'mcp',
  'model',
  'os-io',
  'record',
  'reflect',
  'replay',
  'report',
  'schema',
  'share',
  'studio',
  'vision',
] as const;

/** An environment for npm and the installed CLI: no workspace prefix, no colours, no display. */
export const CLEAN_ENV = { NO_COLOR: '1', DISPLAY: undefined, npm_config_prefix: undefined };

/** Builds and packs every published package into `dir`; returns the tarballs' paths. */
export async function packMime(dir: string): Promise<string[]> {
  await execa('pnpm', ['build'], { cwd: REPO_ROOT });
  await execa('pnpm', ['-r', '--filter', './packages/*', 'pack', '--pack-destination', dir], {
    cwd: REPO_ROOT,
  });
  return (await readdir(dir)).filter((f) => f.endsWith('.tgz')).map((f) => join(dir, f));
}

/** A new npm project in `dir` (ESM) with the tarballs and `extra` registry packages installed. */
export async function installInProject(dir: string, tarballs: readonly string[], extra: string[] = []) {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await execa('npm', ['install', '--no-audit', '--no-fund', ...tarballs, ...extra], {
    cwd: dir,
    env: CLEAN_ENV,
  });
}

/** `npm install -g` of the tarballs into the prefix `dir`; returns the path of its `mime` command. */
export async function installGlobally(dir: string, tarballs: readonly string[]): Promise<string> {
  await execa('npm', ['install', '-g', '--prefix', dir, '--no-audit', '--no-fund', ...tarballs], {
    env: CLEAN_ENV,
  });
  return join(dir, 'bin', 'mime');
}
