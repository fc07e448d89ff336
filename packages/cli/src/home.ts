import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Options every command that reads the data root accepts. */
export interface HomeOptions {
  /** Data root holding `recordings/` and `workflows/`. Default: `$MIME_HOME`, else the current directory. */
  home?: string;
}

export function resolveHome(options: HomeOptions, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(options.home ?? env.MIME_HOME ?? process.cwd());
}

/** A workflow named on the command line: a path as given, else a session id under `<home>/workflows/`. */
export function resolveWorkflowTarget(target: string, flags: HomeOptions): string {
  if (existsSync(target)) return target;
  const underHome = join(resolveHome(flags), 'workflows', target);
  return existsSync(underHome) ? underHome : target;
}
