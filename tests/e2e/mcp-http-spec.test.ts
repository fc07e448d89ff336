/**
 * `mime mcp --http` against the letter of the 2025-11-25 Streamable HTTP transport, driven by plain
 * fetch as a client written from the spec would: 404 for a session that is not there (POST, GET,
 * DELETE) and once one is deleted or idle too long; -32700 for a body that is not JSON; -32002 for a
 * resource that is not there; progress that only goes up and carries a total; a cancelled call's
 * stream closed; and a dropped stream resumed with Last-Event-ID, missing nothing and repeating nothing.
 */
import { join } from 'node:path';
import { copyWorkflow, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type RunningMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();
const PROTOCOL = '2025-11-25';

interface SseEvent {
  id?: string;
  data: string;
}

/** The SSE events of a response body, as they come. */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) event.id = line.slice(3).trim();
        else if (line.startsWith('data:')) event.data += line.slice(5).trim();
      }
      if (event.id !== undefined || event.data !== '') yield event;
    }
  }
}

/** A JSON-RPC message of an event, or null for one without (the priming event). */
const messageOf = (event: SseEvent) => (event.data === '' ? null : JSON.parse(event.data));

class RawClient {
  session: string | undefined;
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      authorization: `Bearer ${this.token}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': PROTOCOL,
      ...(this.session ? { 'mcp-session-id': this.session } : {}),
      ...extra,
    };
  }

  post(body: unknown, init: { signal?: AbortSignal; raw?: string } = {}): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: init.raw ?? JSON.stringify(body),
      signal: init.signal,
    });
  }

  /** Initializes a session; returns the initialize result. */
  async initialize(): Promise<unknown> {
    const response = await this.post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(response.status).toBe(200);
    this.session = response.headers.get('mcp-session-id') ?? undefined;
    const result = await this.resultOf(response, 0);
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(initialized.status).toBe(202);
    return result;
  }

  /** The response to request `id` in a JSON or SSE answer. */
  async resultOf(response: Response, id: number): Promise<{ result?: any; error?: any }> {
    if (response.headers.get('content-type')?.startsWith('application/json')) return response.json();
    for await (const event of eventsOf(response.body as ReadableStream<Uint8Array>)) {
      const message = messageOf(event);
      if (message?.id === id) return message;
    }
    throw new Error(`no response to request ${id}`);
  }

  /** A request's answer. */
  async request(id: number, method: string, params: unknown = {}): Promise<{ result?: any; error?: any }> {
    return this.resultOf(await this.post({ jsonrpc: '2.0', id, method, params }), id);
  }
}

let home: string;
const env = () => ({ DISPLAY: desktop().display, NO_COLOR: '1', MIME_BASE_URL: '', MIME_MODEL: '' });

async function startServer(
  extra: string[] = [],
): Promise<{ server: RunningMime; url: string; token: string }> {
  const server = startMime(['mcp', '--http', '--home', home, ...extra], { env: env() });
  const line = await server.waitForStderr(/token: (\S+)/);
  return {
    server,
    url: /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1] ?? '',
    token: /token: (\S+)/.exec(line)?.[1] ?? '',
  };
}

const callSong = (id: number, song: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'play_song',
    arguments: { params: { song_name: song } },
    _meta: { progressToken: `p${id}` },
  },
});

describe('mime mcp --http, to the letter of the transport', () => {
  let running: { server: RunningMime; url: string; token: string };
  let client: RawClient;

  beforeAll(async () => {
    home = await fileTempDir('mime-mcp-spec-');
    await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
    running = await startServer();
    client = new RawClient(running.url, running.token);
    await client.initialize();
  }, 60_000);
  afterAll(async () => {
    running?.server.kill('SIGTERM');
    await running?.server.done;
  });

  it('answers 404 for a session that is not there, on POST, GET and DELETE, and once it is deleted', async () => {
    const stranger = new RawClient(running.url, running.token);
    stranger.session = 'not-a-session';
    expect((await stranger.post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
    expect((await fetch(running.url, { method: 'GET', headers: stranger.headers() })).status).toBe(404);
    expect((await fetch(running.url, { method: 'DELETE', headers: stranger.headers() })).status).toBe(404);
    // Without a session header a request other than initialize is a bad request, not a lost session.
    stranger.session = undefined;
    expect((await stranger.post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);

    const own = new RawClient(running.url, running.token);
    await own.initialize();
    expect((await own.request(2, 'ping')).result).toEqual({});
    expect((await fetch(running.url, { method: 'DELETE', headers: own.headers() })).status).toBe(200);
    const after = await own.post({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(after.status).toBe(404);
    expect((await after.json()).error).toMatchObject({ message: expect.stringMatching(/Session not found/) });
  });

  it('answers a body that is not JSON with -32700, and a resource that is not there with -32002', async () => {
    const broken = await client.post(null, { raw: '{"jsonrpc": "2.0", "id": 4, "method": ' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(-32700);

    for (const uri of [
      'mime://workflows/nope/schema.json',
      'mime://workflows/play-song/runs/nope/summary.json',
      'file:///etc/passwd',
    ]) {
      const answer = await client.request(5, 'resources/read', { uri });
      expect(answer.error, uri).toMatchObject({ code: -32002, data: { uri } });
    }
    const found = await client.request(6, 'resources/read', {
      uri: 'mime://workflows/play-song/schema.json',
    });
    expect(found.result.contents[0].text).toContain('"task_name"');
  });

  it('reports progress that only goes up, each with a total', async () => {
    await desktop().resetApp();
    const response = await client.post(callSong(7, 'Faint'));
    const progress: { progress: number; total: number }[] = [];
    let result: any;
    for await (const event of eventsOf(response.body as ReadableStream<Uint8Array>)) {
      const message = messageOf(event);
      if (message?.method === 'notifications/progress') progress.push(message.params);
      if (message?.id === 7) result = message.result;
    }
    expect(result.structuredContent).toMatchObject({
      outcome: 'success',
      extracts: { song_now_playing: 'Faint' },
    });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5]);
    expect(progress.every((p) => p.total === 5)).toBe(true);
  });

  it("closes a cancelled call's stream, and the run ends aborted", async () => {
    await desktop().resetApp();
    const response = await client.post(callSong(8, 'Yellow'));
    const messages: any[] = [];
    let cancelled = false;
    // The stream must end by itself: the loop ends only when the server closes it.
    for await (const event of eventsOf(response.body as ReadableStream<Uint8Array>)) {
      const message = messageOf(event);
      if (message) messages.push(message);
      if (message?.method === 'notifications/progress' && !cancelled) {
        cancelled = true;
        const sent = await client.post({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 8, reason: 'the test cancels it' },
        });
        expect(sent.status).toBe(202);
      }
    }
    expect(cancelled).toBe(true);
    expect(messages.some((m) => m.id === 8)).toBe(false);
    // The run ends as Ctrl+C ends it: its summary says aborted.
    let outcome: string | undefined;
    for (let i = 0; i < 100 && outcome !== 'aborted'; i += 1) {
      const listed = await client.request(9, 'tools/call', { name: 'list_workflows', arguments: {} });
      outcome = listed.result.structuredContent.workflows[0].last_run?.outcome;
      if (outcome !== 'aborted') await sleep(100);
    }
    expect(outcome).toBe('aborted');
  });

  it('resumes a dropped stream with Last-Event-ID: what was missed comes, nothing twice', async () => {
    await desktop().resetApp();
    const drop = new AbortController();
    const response = await client.post(callSong(12, 'Numb'), { signal: drop.signal });
    const seen: { id?: string; message: any }[] = [];
    let lastId: string | undefined;
    try {
      for await (const event of eventsOf(response.body as ReadableStream<Uint8Array>)) {
        if (event.id) lastId = event.id;
        seen.push({ id: event.id, message: messageOf(event) });
        // The priming event (an id, no data), then the first step's progress: drop the stream.
        if (seen.some((e) => e.message?.method === 'notifications/progress')) break;
      }
    } finally {
      drop.abort();
    }
    expect(seen[0]).toMatchObject({ id: expect.any(String), message: null });
    expect(lastId).toBeDefined();

    // Until the server has seen the dropped stream close, the session still has it: 409, as a client
    // that resumes at once may get; it asks again.
    const resume = () =>
      fetch(running.url, {
        method: 'GET',
        headers: client.headers({ accept: 'text/event-stream', 'last-event-id': lastId as string }),
      });
    let resumed = await resume();
    for (let i = 0; i < 50 && resumed.status === 409; i += 1) {
      await resumed.body?.cancel();
      await sleep(100);
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    let result: any;
    for await (const event of eventsOf(resumed.body as ReadableStream<Uint8Array>)) {
      const message = messageOf(event);
      seen.push({ id: event.id, message });
      if (message?.id === 12) {
        result = message.result;
        break;
      }
    }
    expect(result.structuredContent).toMatchObject({
      outcome: 'success',
      extracts: { song_now_playing: 'Numb' },
    });
    const progress = seen.filter((e) => e.message?.method === 'notifications/progress');
    expect(progress.map((e) => e.message.params.progress)).toEqual([1, 2, 3, 4, 5]);
    const ids = seen.flatMap((e) => (e.id ? [e.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('mime mcp --http --session-idle', () => {
  it('ends a session idle longer than that: a request for it then gets 404', async () => {
    home = await fileTempDir('mime-mcp-idle-');
    const running = await startServer(['--session-idle', '1']);
    try {
      const client = new RawClient(running.url, running.token);
      await client.initialize();
      expect((await client.request(1, 'ping')).result).toEqual({});
      // Each look is a request of the session, so looks are spaced wider than the idle time.
      let status = 200;
      for (let i = 0; i < 20 && status !== 404; i += 1) {
        await sleep(1500);
        status = (await client.post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status;
      }
      expect(status).toBe(404);
    } finally {
      running.server.kill('SIGTERM');
      await running.server.done;
    }
  }, 60_000);
});
