/**
 * The events of one HTTP session kept for resumption (Streamable HTTP, 2025-11-25): each SSE event
 * gets an id, and a client whose stream dropped asks again with `Last-Event-ID` to get what it missed.
 * It implements the SDK's `EventStore` (the SDK ships only an example store: unbounded, and its ids,
 * a time and a random suffix, do not order two events of one millisecond). Here ids are
 * `<stream>_<sequence>`, kept in the order stored, at most `maxEvents` (the oldest go first); a stream
 * ended on purpose (its request was cancelled) is forgotten and cannot be resumed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Default of {@link BoundedEventStoreOptions.maxEvents}. */
export const DEFAULT_MAX_EVENTS = 2000;

export interface BoundedEventStoreOptions {
  /** Events kept for the session, all its streams together. Default 2000. */
  maxEvents?: number;
}

interface Stream {
  /** The requests whose responses this stream carries. */
  requests: readonly RequestId[];
  /** How many of its events are still kept. */
  kept: number;
}

export class BoundedEventStore implements EventStore {
  readonly #maxEvents: number;
  #sequence = 0;
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  readonly #streams = new Map<string, Stream>();
  /** Streams ended on purpose, newest last (a late event of theirs is dropped). */
  readonly #ended = new Set<string>();
  /** The requests of the HTTP request being handled, so a new stream knows whose responses it carries. */
  readonly #requests = new AsyncLocalStorage<readonly RequestId[]>();

  constructor(options: BoundedEventStoreOptions = {}) {
    this.#maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  }

  /** Runs `handle` (the transport handling one HTTP request) knowing which JSON-RPC requests it carries. */
  within<T>(requests: readonly RequestId[], handle: () => Promise<T>): Promise<T> {
    return this.#requests.run(requests, handle);
  }

  /** The stream that carries a request's response, if it is still kept. */
  streamOf(request: RequestId): string | undefined {
    for (const [id, stream] of this.#streams) if (stream.requests.includes(request)) return id;
    return undefined;
  }

  /** Forgets a stream: its events go, a resumption of it is refused, a late event of it is dropped. */
  end(streamId: string): void {
    for (const [id, event] of this.#events) if (event.streamId === streamId) this.#events.delete(id);
    this.#streams.delete(streamId);
    this.#ended.add(streamId);
    if (this.#ended.size > 1000) this.#ended.delete(this.#ended.values().next().value as string);
  }

  /** How many events are kept now. */
  get size(): number {
    return this.#events.size;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.#sequence += 1;
    const eventId = `${streamId}_${this.#sequence}`;
    if (this.#ended.has(streamId)) return eventId;
    const stream = this.#streams.get(streamId) ?? { requests: this.#requests.getStore() ?? [], kept: 0 };
    stream.kept += 1;
    this.#streams.set(streamId, stream);
    this.#events.set(eventId, { streamId, message });
    while (this.#events.size > this.#maxEvents) this.#evictOldest();
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = eventId.slice(0, Math.max(0, eventId.lastIndexOf('_')));
    return this.#streams.has(streamId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? '';
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf('_') + 1));
    for (const [eventId, event] of [...this.#events]) {
      if (event.streamId !== streamId) continue;
      // Ids grow with the order stored: what comes after the last one seen is what was missed.
      if (Number(eventId.slice(eventId.lastIndexOf('_') + 1)) <= after) continue;
      // The priming event (no message) marks where a stream starts; there is nothing to resend.
      if (Object.keys(event.message).length > 0) await send(eventId, event.message);
    }
    return streamId;
  }

  #evictOldest(): void {
    const [eventId, event] = this.#events.entries().next().value as [string, { streamId: string }];
    this.#events.delete(eventId);
    const stream = this.#streams.get(event.streamId);
    if (stream && --stream.kept === 0) this.#streams.delete(event.streamId);
  }
}
