import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  FileReadError,
  isMissingFileError,
  parseJsonText,
  readTextFile,
  ValidationError,
  zodProblems,
} from '@mime-desktop/schema';
import type { z } from 'zod';
import { modelSettingsSchema } from './settings.ts';

/** The model settings a config file may hold; every field is optional, other keys are ignored. */
export const modelConfigFileSchema = modelSettingsSchema.partial();
export type ModelConfigFile = z.infer<typeof modelConfigFileSchema>;

/** Which config file applies and who named it. */
export interface ConfigFileLocation {
  path: string;
  /** `flag`: the caller's `configFile`; `env`: `MIME_CONFIG`; `default`: the XDG location, which may be absent. */
  namedBy: 'flag' | 'env' | 'default';
}

/** A config file that was looked for, with its settings (empty when an optional default file is absent). */
export interface LoadedConfigFile extends ConfigFileLocation {
  found: boolean;
  settings: ModelConfigFile;
}

/**
 * Picks the config file: `configFile` (the CLI's `--config`), else `MIME_CONFIG`, else
 * `$XDG_CONFIG_HOME/mime/config.json`, else `$HOME/.config/mime/config.json`.
 */
export function locateConfigFile(configFile: string | undefined, env: NodeJS.ProcessEnv): ConfigFileLocation {
  if (configFile) return { path: configFile, namedBy: 'flag' };
  if (env.MIME_CONFIG) return { path: env.MIME_CONFIG, namedBy: 'env' };
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return { path: join(configHome, 'mime', 'config.json'), namedBy: 'default' };
}

/**
 * Reads and validates a config file. A missing default file is fine (no settings); a missing named
 * file throws {@link FileReadError}, bad JSON a `JsonSyntaxError`, and wrong fields a
 * {@link ValidationError} listing every `path: message`.
 */
export async function loadConfigFile(location: ConfigFileLocation): Promise<LoadedConfigFile> {
  let text: string;
  try {
    // The user's own file: it may be a link (a dotfiles repo), but a FIFO or a device is refused at once.
    text = await readTextFile(location.path, { inside: false });
  } catch (error) {
    if (!isMissingFileError(error)) throw error;
    if (location.namedBy === 'default') return { ...location, found: false, settings: {} };
    const namer = location.namedBy === 'env' ? 'MIME_CONFIG' : '--config';
    throw new FileReadError(location.path, `no such file (named by ${namer}); check the path or unset it`, {
      cause: (error as FileReadError).cause,
    });
  }
  const parsed = modelConfigFileSchema.safeParse(parseJsonText(text, location.path));
  if (!parsed.success) {
    throw new ValidationError(location.path, 'mime config file', zodProblems(parsed.error));
  }
  return { ...location, found: true, settings: parsed.data };
}
