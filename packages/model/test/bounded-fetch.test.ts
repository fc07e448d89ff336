import { describe, expect, it } from 'vitest';
import { boundedFetch } from '../src/bounded-fetch.ts';

const answering =
  (headers: Record<string, string>): typeof fetch =>
  async () =>
    new Response('{"error": "slow down"}', { status: 429, headers });

const fetched = (headers: Record<string, string>) =>
  boundedFetch(answering(headers), { deadlineMs: 5000, baseURL: 'http://127.0.0.1:1/v1' })(
    'http://x/v1/chat',
  );

describe('bounded fetch', () => {
  it('caps the wait a server asks for before a retry at 60 s, whatever its form', async () => {
    expect((await fetched({ 'retry-after': '3600' })).headers.get('retry-after')).toBe('60');
    expect(
      (await fetched({ 'retry-after': new Date(Date.now() + 86_400_000).toUTCString() })).headers.get(
        'retry-after',
      ),
    ).toBe('60');
    expect((await fetched({ 'retry-after-ms': '999999' })).headers.get('retry-after-ms')).toBe('60000');
    const small = await fetched({ 'retry-after': '2' });
    expect(small.headers.get('retry-after')).toBe('2');
    expect(small.status).toBe(429);
    expect(await small.json()).toEqual({ error: 'slow down' });
  });
});
