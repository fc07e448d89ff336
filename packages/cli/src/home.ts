import { resolve } from 'node:path';

/** Options every command that reads the data root accepts. */
export interface HomeOptions {
  /** Data root holding `recordings/` and `workflows/`. Default: `$MIME_HOME`, else the current directory. */
  home?: string;
}

export function resolveHome(options: HomeOptions, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(options.home ?? env.MIME_HOME ?? process.cwd());
}
