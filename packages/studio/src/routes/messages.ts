/** A job's messages (a run's, a reflect's) as Server-Sent Events. */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { MessageLog } from '../message-log.ts';

/**
 * The messages of a job as Server-Sent Events, from the first the page has not seen (a reconnecting
 * EventSource says the last it got) to the end.
 */
export function streamMessages<M extends { kind: string }>(c: Context, log: MessageLog<M>) {
  const after = Number(c.req.header('last-event-id') ?? -1);
  return streamSSE(c, async (stream) => {
    let writes = Promise.resolve();
    let unsubscribe: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      unsubscribe = log.listen(
        (message, index) => {
          writes = writes.then(() => stream.writeSSE({ id: String(index), data: JSON.stringify(message) }));
          if (message.kind === 'end') resolve();
        },
        Number.isInteger(after) ? after + 1 : 0,
      );
      stream.onAbort(resolve);
    });
    unsubscribe();
    // The end is written before the stream closes.
    await writes;
  });
}
