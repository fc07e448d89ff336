import {
  type FakeModelServer,
  type FakeModelServerOptions,
  startFakeModelServer,
} from '@mime-desktop/test-support/fake-model-server';
import { onTestFinished } from 'vitest';
import {
  ModelClient,
  type ModelClientOptions,
  type ModelConfigFlags,
  type ModelEvent,
  resolveModelConfig,
} from '../src/index.ts';

/** An environment without any mime settings, and a config home that does not exist. */
export const EMPTY_ENV = { XDG_CONFIG_HOME: '/nonexistent/mime-test-config' };

/** A fake server and a client pointed at it (no HTTP retries unless asked), closed after the test. */
export async function startServerAndClient(
  options: { server?: FakeModelServerOptions; flags?: ModelConfigFlags; client?: ModelClientOptions } = {},
): Promise<{ server: FakeModelServer; client: ModelClient; events: ModelEvent[] }> {
  const server = await startFakeModelServer(options.server);
  onTestFinished(() => server.close());
  const events: ModelEvent[] = [];
  const config = await resolveModelConfig({
    flags: { baseURL: server.url, model: 'fake-model', maxRetries: 0, timeoutMs: 2000, ...options.flags },
    env: EMPTY_ENV,
  });
  const client = new ModelClient(config, { onEvent: (e) => events.push(e), ...options.client });
  return { server, client, events };
}

/** The text of a chat message's content, whether a string or parts. */
export function textOf(message: { content?: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}
