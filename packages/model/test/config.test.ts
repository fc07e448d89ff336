import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { ModelConfigError, resolveModelConfig } from '../src/index.ts';
import { EMPTY_ENV } from './model-fixture.ts';

async function writeConfig(value: unknown): Promise<string> {
  const dir = await tempDir('mime-model-config-');
  const file = join(dir, 'config.json');
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('resolveModelConfig', () => {
  it('takes flags over env over the config file over defaults, and records each source', async () => {
    const file = await writeConfig({
      baseURL: 'http://127.0.0.1:1111/v1',
      model: 'file-model',
      apiKey: 'file-key',
      toolMode: 'text',
      timeoutMs: 5000,
    });
    const config = await resolveModelConfig({
      flags: { model: 'flag-model' },
      env: {
        ...EMPTY_ENV,
        MIME_MODEL: 'env-model',
        MIME_BASE_URL: 'http://127.0.0.1:2222/v1',
        MIME_MODEL_MAX_RETRIES: '7',
        MIME_COORDINATES: 'pixels',
      },
      configFile: file,
    });
    expect(config).toMatchObject({
      model: 'flag-model',
      baseURL: 'http://127.0.0.1:2222/v1',
      toolMode: 'text',
      timeoutMs: 5000,
      maxRetries: 7,
      structuredMode: 'auto',
      coordinates: 'pixels',
      configFile: { path: file, found: true },
    });
    expect(config.apiKey?.reveal()).toBe('file-key');
    expect(config.sources).toEqual({
      model: { from: 'flag', name: '--model' },
      baseURL: { from: 'env', name: 'MIME_BASE_URL' },
      maxRetries: { from: 'env', name: 'MIME_MODEL_MAX_RETRIES' },
      apiKey: { from: 'file', name: file },
      toolMode: { from: 'file', name: file },
      timeoutMs: { from: 'file', name: file },
      structuredMode: { from: 'default', name: '' },
      coordinates: { from: 'env', name: 'MIME_COORDINATES' },
    });
  });

  it('falls back to OPENAI_API_KEY, prefers MIME_API_KEY, and never prints the key', async () => {
    const env = { ...EMPTY_ENV, MIME_BASE_URL: 'https://models.example.com/v1', MIME_MODEL: 'm' };
    const fallback = await resolveModelConfig({ env: { ...env, OPENAI_API_KEY: 'sk-openai-123' } });
    expect(fallback.apiKey?.reveal()).toBe('sk-openai-123');
    expect(fallback.sources.apiKey).toEqual({ from: 'env', name: 'OPENAI_API_KEY' });
    expect(JSON.stringify(fallback)).not.toContain('sk-openai-123');
    expect(inspect(fallback, { depth: 10 })).not.toContain('sk-openai-123');
    expect(String(fallback.apiKey)).toBe('[redacted]');

    const both = await resolveModelConfig({
      env: { ...env, OPENAI_API_KEY: 'sk-openai-123', MIME_API_KEY: 'sk-mime-456' },
    });
    expect(both.apiKey?.reveal()).toBe('sk-mime-456');
  });

  it('reads the default XDG config file, and tolerates its absence', async () => {
    const file = await writeConfig({ baseURL: 'http://localhost:8000/v1', model: 'xdg-model' });
    const xdg = join(file, '..', '..');
    await mkdir(join(xdg, 'mime'), { recursive: true });
    await rename(file, join(xdg, 'mime', 'config.json'));
    const config = await resolveModelConfig({ env: { XDG_CONFIG_HOME: xdg } });
    expect(config.model).toBe('xdg-model');
    expect(config.configFile).toEqual({ path: join(xdg, 'mime', 'config.json'), found: true });

    const flagsOnly = await resolveModelConfig({
      flags: { baseURL: 'http://localhost:8000/v1', model: 'm' },
      env: EMPTY_ENV,
    });
    expect(flagsOnly.configFile.found).toBe(false);
  });

  it('lets a local server go without an API key, but not a remote one', async () => {
    const local = await resolveModelConfig({
      flags: { baseURL: 'http://localhost:11434/v1', model: 'llava' },
      env: EMPTY_ENV,
    });
    expect(local.apiKey).toBeNull();
    expect(local.sources.apiKey).toEqual({ from: 'unset', name: '' });

    const remote = resolveModelConfig({
      flags: { baseURL: 'https://api.example.com/v1', model: 'gpt' },
      env: EMPTY_ENV,
    });
    await expect(remote).rejects.toThrow(ModelConfigError);
    await expect(remote).rejects.toMatchObject({ code: 'MIME_MODEL_NOT_CONFIGURED' });
    await expect(remote).rejects.toThrow(/set MIME_API_KEY or OPENAI_API_KEY \(or add "apiKey"/);
  });

  it('says which env var and config key to set when the model and base URL are missing', async () => {
    const error = await resolveModelConfig({ env: EMPTY_ENV }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelConfigError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_NOT_CONFIGURED' });
    const message = (error as Error).message;
    expect(message).toContain(
      'set MIME_BASE_URL (or add "baseURL" to /nonexistent/mime-test-config/mime/config.json)',
    );
    expect(message).toContain(
      'set MIME_MODEL (or add "model" to /nonexistent/mime-test-config/mime/config.json)',
    );
  });

  it('reports every invalid field of the config file as path: message', async () => {
    const file = await writeConfig({
      baseURL: 'ftp://x',
      model: 'm',
      toolMode: 'smoke-signals',
      timeoutMs: -5,
    });
    const error = await resolveModelConfig({ configFile: file, env: EMPTY_ENV }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MIME_INVALID_FILE' });
    const message = (error as Error).message;
    expect(message).toContain(`${file}: not a valid mime config file (3 problems)`);
    expect(message).toMatch(/ {2}baseURL: expected an http:\/\/ or https:\/\/ URL/);
    expect(message).toMatch(/ {2}toolMode: Invalid option: expected one of "native"\|"text"/);
    expect(message).toMatch(/ {2}timeoutMs: must be a whole number of ms above 0/);
  });

  it('rejects a named config file that is missing or not JSON', async () => {
    const missing = resolveModelConfig({ configFile: '/nonexistent/mime.json', env: EMPTY_ENV });
    await expect(missing).rejects.toMatchObject({
      code: 'MIME_FILE_UNREADABLE',
      message: '/nonexistent/mime.json: no such file (named by --config); check the path or unset it',
    });
    const viaEnv = resolveModelConfig({ env: { ...EMPTY_ENV, MIME_CONFIG: '/nonexistent/env.json' } });
    await expect(viaEnv).rejects.toThrow('(named by MIME_CONFIG)');

    const broken = await writeConfig('{"model": "m",\n  "baseURL" }');
    await expect(resolveModelConfig({ configFile: broken, env: EMPTY_ENV })).rejects.toMatchObject({
      code: 'MIME_INVALID_JSON',
      line: 2,
    });
  });

  it('rejects bad env and flag values, naming the variable or flag', async () => {
    const error = await resolveModelConfig({
      flags: { baseURL: 'http://localhost:1/v1', model: 'm', maxRetries: -1 },
      env: { ...EMPTY_ENV, MIME_TOOL_MODE: 'telepathy', MIME_MODEL_TIMEOUT_MS: 'soon' },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MIME_MODEL_CONFIG_INVALID' });
    const message = (error as Error).message;
    expect(message).toContain('MIME_TOOL_MODE: Invalid option');
    expect(message).toContain('MIME_MODEL_TIMEOUT_MS: expected a whole number, got');
    expect(message).toContain('--model-max-retries: must be 0 or more');
  });
});
