import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './exit-codes.ts';

/** Options every command that reads the data root accepts. */
export interface HomeOptions {
  /** Data root holding `recordings/` and `workflows/`. Default: `$MIME_HOME`, else the current directory. */
  home?: string;
}

export function resolveHome(options: HomeOptions, env: NodeJS.ProcessEnv = process.env): string {
  const home = resolve(options.home ?? env.MIME_HOME ?? process.cwd());
  if (existsSync(home) && !statSync(home).isDirectory()) {
    throw new UsageError(
      `${home} is a file, not a folder: --home (or MIME_HOME) is the data root that holds recordings/ and workflows/`,
    );
  }
  return home;
}

/** A workflow named on the command line: a path as given, else a session id under `<home>/workflows/`. */
export function resolveWorkflowTarget(target: string, flags: HomeOptions): string {
  if (existsSync(target)) return target;
  const underHome = join(resolveHome(flags), 'workflows', target);
  return existsSync(underHome) ? underHome : target;
}
