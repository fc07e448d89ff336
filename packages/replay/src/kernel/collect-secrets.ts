import type { TaskParam } from '@mime-desktop/schema';
import { secretEnvName } from './materialize.ts';

export interface CollectSecretsOptions {
  /** Environment read for `MIME_PARAM_<NAME>`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Asks a person for a sensitive value the environment does not hold (the CLI asks on the TTY
   * without echo); resolves null when there is nobody to ask. Default: none (the param stays missing).
   */
  promptSecret?: (param: TaskParam) => Promise<string | null>;
}

/** Values of the workflow's sensitive params, from `MIME_PARAM_<NAME>` or the prompt, by name. */
export async function collectSecrets(
  params: readonly TaskParam[],
  options: CollectSecretsOptions = {},
): Promise<Record<string, string>> {
  const env = options.env ?? process.env;
  const secrets: Record<string, string> = Object.create(null);
  for (const param of params) {
    if (!param.sensitive) continue;
    const fromEnv = env[secretEnvName(param.name)];
    const value = fromEnv !== undefined && fromEnv !== '' ? fromEnv : await options.promptSecret?.(param);
    if (value !== undefined && value !== null && value !== '') secrets[param.name] = value;
  }
  return secrets;
}
