import { inspect } from 'node:util';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ModelAuthError,
  ModelClient,
  ModelRateLimitError,
  ModelServerError,
  ModelTimeoutError,
  ModelUnreachableError,
  resolveModelConfig,
} from '../src/index.ts';
import { EMPTY_ENV, startServerAndClient } from './model-fixture.ts';

const Answer = z.object({ answer: z.string() });
const ask = { name: 'answer', schema: Answer, messages: [{ role: 'user' as const, content: 'Say hi.' }] };

describe('HTTP faults', () => {
  it('waits out a 429 with retry-after and succeeds: 2 requests, 1 call', async () => {
    const { server, client, events } = await startServerAndClient({ flags: { maxRetries: 2 } });
    server.enqueue(
      { type: 'error', status: 429, headers: { 'retry-after': '0.2' } },
      { type: 'json', value: { answer: 'hi' } },
    );

    const started = Date.now();
    const result = await client.structured(ask);

    expect(result.value).toEqual({ answer: 'hi' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(result.usage).toMatchObject({ requests: 2, repairs: 0 });
    expect(client.meter.snapshot()).toMatchObject({ calls: 1, requests: 2 });
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', callId: 1, attempt: 2, reason: 'HTTP 429' },
    ]);
    expect(server.chatRequests().map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('retries two 500s and succeeds on the third attempt', async () => {
    const { server, client } = await startServerAndClient({ flags: { maxRetries: 4 } });
    server.enqueue(
      { type: 'error', status: 500, headers: { 'retry-after-ms': '10' } },
      { type: 'error', status: 503, headers: { 'retry-after-ms': '10' } },
      { type: 'json', value: { answer: 'hi' } },
    );

    const result = await client.structured(ask);

    expect(result.value.answer).toBe('hi');
    expect(result.usage.requests).toBe(3);
    expect(client.meter.snapshot()).toMatchObject({ calls: 1, requests: 3 });
  });

  it('maps 500s that outlast the retries to ModelServerError', async () => {
    const { server, client } = await startServerAndClient({ flags: { maxRetries: 1 } });
    server.setHandler(() => ({
      type: 'error',
      status: 500,
      message: 'CUDA out of memory',
      headers: { 'retry-after-ms': '1' },
    }));

    const error = await client.structured(ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelServerError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_SERVER', status: 500 });
    expect((error as Error).message).toContain('failed with HTTP 500 on 2 attempts: CUDA out of memory');
  });

  it('maps a 429 that outlasts the retries to ModelRateLimitError', async () => {
    const { server, client } = await startServerAndClient({ flags: { maxRetries: 1 } });
    server.setHandler(() => ({
      type: 'error',
      status: 429,
      message: 'slow down',
      headers: { 'retry-after': '0' },
    }));

    const error = await client.structured(ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelRateLimitError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_RATE_LIMITED' });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('maps a 401 to ModelAuthError without the key that the server echoes', async () => {
    const secret = 'sk-test-SECRET-0123456789';
    const server = await startFakeModelServer({ apiKey: 'the-right-key' });
    try {
      const config = await resolveModelConfig({
        flags: { baseURL: server.url, model: 'fake-model', apiKey: secret, maxRetries: 0 },
        env: EMPTY_ENV,
      });
      const events: unknown[] = [];
      const client = new ModelClient(config, { onEvent: (e) => events.push(e) });

      const error = await client.structured(ask).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelAuthError);
      expect(error).toMatchObject({ code: 'MIME_MODEL_AUTH', status: 401 });
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${secret}`);
      const message = (error as Error).message;
      expect(message).toContain('Incorrect API key provided: [redacted]');
      expect(message).toContain('Check MIME_API_KEY');
      for (const text of [
        message,
        JSON.stringify(error),
        inspect(error, { depth: 20 }),
        String((error as Error).stack),
        inspect((error as Error).cause, { depth: 20 }),
        JSON.stringify(events),
        inspect(client, { depth: 20 }),
        JSON.stringify(config),
      ]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await server.close();
    }
  });

  it('maps a refused connection to ModelUnreachableError naming the base URL', async () => {
    const server = await startFakeModelServer();
    const url = server.url;
    await server.close();
    const config = await resolveModelConfig({
      flags: { baseURL: url, model: 'm', maxRetries: 0 },
      env: EMPTY_ENV,
    });

    const error = await new ModelClient(config).structured(ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelUnreachableError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_UNREACHABLE', baseURL: url });
    expect((error as Error).message).toContain(`Cannot reach the model server at ${url} (connection refused`);
    expect((error as Error).message).toContain('MIME_BASE_URL');
  });

  it('maps a reply slower than the timeout to ModelTimeoutError, after the retries', async () => {
    const { server, client } = await startServerAndClient({ flags: { timeoutMs: 150, maxRetries: 1 } });
    // A server that would answer only after 20 s: without the timeout, the call hangs that long.
    server.setHandler(() => ({ type: 'json', value: { answer: 'late' }, delayMs: 20_000 }));

    const started = Date.now();
    const error = await client.structured(ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_TIMEOUT', timeoutMs: 150 });
    expect((error as Error).message).toContain('did not answer within 150 ms (2 attempts)');
    // The timeout cut the hang: ended long before the server's 20 s answer (two 150 ms attempts and
    // the retry's backoff, with a margin for a busy machine; not a speed figure).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(client.meter.snapshot()).toMatchObject({ calls: 1, requests: 2 });
  });

  it('maps a body that is not JSON to ModelServerError', async () => {
    const { server, client } = await startServerAndClient();
    server.enqueue({ type: 'malformed' });

    const error = await client.structured(ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelServerError);
    expect((error as Error).message).toMatch(/sent a reply that is not valid JSON .*ends in \/v1/);
  });

  it('says so when nothing scripted a reply (and the SDK does not retry it)', async () => {
    const { server, client } = await startServerAndClient({ flags: { maxRetries: 4 } });

    const error = await client.structured(ask).catch((e: unknown) => e);

    expect((error as Error).message).toContain('the test did not script a reply for chat request #1');
    expect(server.chatRequests()).toHaveLength(1);
  });
});

describe('abort', () => {
  it('aborts a slow call with MIME_ABORTED', async () => {
    const { server, client, events } = await startServerAndClient();
    server.setHandler(() => ({ type: 'json', value: { answer: 'late' }, delayMs: 1000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const error = await client.structured({ ...ask, signal: controller.signal }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'MIME_ABORTED' });
    expect(events.at(-1)).toMatchObject({ type: 'call-end', errorCode: 'MIME_ABORTED' });
  });

  it('aborts while the SDK waits out a long retry-after', async () => {
    const { server, client } = await startServerAndClient({ flags: { maxRetries: 2 } });
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '30' } });

    const started = Date.now();
    const error = await client
      .structured({ ...ask, signal: AbortSignal.timeout(200) })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'MIME_ABORTED' });
    // The abort cut the wait: ended long before the 30 s retry-after (a margin for a busy machine;
    // not a speed figure).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const { server, client } = await startServerAndClient();

    const error = await client.structured({ ...ask, signal: AbortSignal.abort() }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'MIME_ABORTED' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('ping', () => {
  it('lists the models and measures latency', async () => {
    const { client } = await startServerAndClient({
      server: { models: ['qwen2.5-vl', 'llava'], modelsDelayMs: 120 },
    });

    const started = performance.now();
    const result = await client.ping();
    const wall = performance.now() - started;

    expect(result).toMatchObject({ ok: true, models: ['qwen2.5-vl', 'llava'] });
    // The server's 120 ms are in it, and nothing from outside the call.
    expect(result.latencyMs).toBeGreaterThanOrEqual(120);
    expect(result.latencyMs).toBeLessThanOrEqual(Math.ceil(wall));
    expect(client.meter.snapshot().calls).toBe(0);
  });

  it('throws the typed error when the key is refused', async () => {
    const { client } = await startServerAndClient({
      server: { apiKey: 'right' },
      flags: { apiKey: 'wrong-key-zz' },
    });

    const error = await client.ping().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelAuthError);
    expect(inspect(error, { depth: 20 })).not.toContain('wrong-key-zz');
  });
});
