import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelOutputError, UsageMeter } from '../src/index.ts';
import { startServerAndClient } from './model-fixture.ts';

const ask = {
  name: 'answer',
  schema: z.object({ answer: z.string() }),
  messages: [{ role: 'user' as const, content: 'Say hi.' }],
};

describe('UsageMeter', () => {
  it('totals the calls of several clients, failed ones included, and reports each call', async () => {
    const meter = new UsageMeter();
    const a = await startServerAndClient({ client: { meter } });
    const b = await startServerAndClient({ client: { meter } });
    a.server.enqueue({
      type: 'json',
      value: { answer: 'hi' },
      usage: { promptTokens: 100, completionTokens: 10 },
      delayMs: 50,
    });
    b.server.enqueue(
      {
        type: 'json',
        value: { wrong: true },
        usage: { promptTokens: 200, completionTokens: 20 },
        delayMs: 50,
      },
      {
        type: 'json',
        value: { wrong: true },
        usage: { promptTokens: 300, completionTokens: 30 },
        delayMs: 50,
      },
    );

    await a.client.structured(ask);
    await expect(b.client.structured({ ...ask, repairAttempts: 1 })).rejects.toThrow(ModelOutputError);

    const totals = meter.snapshot();
    expect(totals).toMatchObject({ calls: 2, requests: 3, repairs: 1, inputTokens: 600, outputTokens: 60 });
    // The sum of the two calls' durations, each at least its replies' delays (50 ms a reply).
    const ends = [...a.events, ...b.events].flatMap((e) =>
      e.type === 'call-end' ? [e.usage.durationMs] : [],
    );
    expect(ends).toHaveLength(2);
    expect(totals.durationMs).toBe((ends[0] ?? 0) + (ends[1] ?? 0));
    expect(ends[0]).toBeGreaterThanOrEqual(50);
    expect(ends[1]).toBeGreaterThanOrEqual(100);
    expect(b.events.at(-1)).toMatchObject({
      type: 'call-end',
      errorCode: 'MIME_MODEL_OUTPUT',
      usage: { requests: 2, repairs: 1, inputTokens: 500, outputTokens: 50 },
    });
    totals.calls = 99;
    expect(meter.snapshot().calls).toBe(2);
  });
});
