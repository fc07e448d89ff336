import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelOutputError, UsageMeter } from '../src/index.ts';
import { startServerAndClient, textOf } from './model-fixture.ts';

const StepCard = z.object({
  i: z.int(),
  intent: z.string(),
  action_type: z.enum(['CLICK', 'TYPE']),
  post_action: z.array(z.string()).min(1).max(2),
});

const GOOD = {
  i: 0,
  intent: 'Open the search box',
  action_type: 'CLICK',
  post_action: ['Search box focused'],
};
const messages = [{ role: 'user' as const, content: 'Describe step 0.' }];

describe('ModelClient.structured', () => {
  it('sends a strict json_schema response_format, validates the reply and counts usage', async () => {
    const { server, client, events } = await startServerAndClient();
    server.enqueue({ type: 'json', value: GOOD, usage: { promptTokens: 120, completionTokens: 30 } });

    const result = await client.structured({ name: 'step_card', schema: StepCard, messages });

    expect(result.value).toEqual(GOOD);
    expect(result.usage).toMatchObject({ requests: 1, repairs: 0, inputTokens: 120, outputTokens: 30 });
    const body = server.chatRequests()[0]?.body;
    expect(body?.model).toBe('fake-model');
    expect(body?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: {
        name: 'step_card',
        strict: true,
        schema: { type: 'object', additionalProperties: false },
      },
    });
    expect(client.meter.snapshot()).toMatchObject({
      calls: 1,
      requests: 1,
      repairs: 0,
      inputTokens: 120,
      outputTokens: 30,
    });
    expect(events.map((e) => e.type)).toEqual(['call-start', 'call-end']);
    expect(events[1]).toMatchObject({
      type: 'call-end',
      errorCode: null,
      kind: 'structured',
      name: 'step_card',
    });
  });

  it('repairs wrong-shaped output, sending back the zod paths of the problems', async () => {
    const { server, client, events } = await startServerAndClient();
    server.enqueue(
      { type: 'json', value: { ...GOOD, action_type: 'HOVER', post_action: [] } },
      { type: 'text', content: `\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\`` },
    );

    const result = await client.structured({ name: 'step_card', schema: StepCard, messages });

    expect(result.value).toEqual(GOOD);
    expect(result.usage).toMatchObject({ requests: 2, repairs: 1 });
    const second = server.chatRequests()[1]?.body?.messages ?? [];
    expect(second).toHaveLength(3);
    expect(second[1]).toMatchObject({
      role: 'assistant',
      content: JSON.stringify({ ...GOOD, action_type: 'HOVER', post_action: [] }),
    });
    expect(second[2]?.role).toBe('user');
    expect(textOf(second[2])).toMatch(/- action_type: Invalid option/);
    expect(textOf(second[2])).toMatch(/- post_action: Too small/);
    expect(events.find((e) => e.type === 'repair')).toMatchObject({ round: 1 });
  });

  it('gives up with ModelOutputError after repairAttempts + 1 calls, keeping the last output', async () => {
    const { server, client } = await startServerAndClient();
    server.setHandler(() => ({ type: 'json', value: { i: 'zero' } }));

    const error = await client
      .structured({ name: 'step_card', schema: StepCard, messages, repairAttempts: 1 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelOutputError);
    expect(error).toMatchObject({ code: 'MIME_MODEL_OUTPUT', raw: '{"i":"zero"}' });
    expect((error as ModelOutputError).problems.map((p) => p.path)).toEqual([
      'i',
      'intent',
      'action_type',
      'post_action',
    ]);
    expect((error as Error).message).toContain('on 2 attempts');
    expect(server.chatRequests()).toHaveLength(2);
    expect(client.meter.snapshot()).toMatchObject({ calls: 1, requests: 2, repairs: 1 });
  });

  it('repairs a reply that is not JSON at all', async () => {
    const { server, client } = await startServerAndClient();
    server.enqueue(
      { type: 'text', content: 'Sure! The step clicks the search box.' },
      { type: 'json', value: GOOD },
    );

    const result = await client.structured({ name: 'step_card', schema: StepCard, messages });

    expect(result.value).toEqual(GOOD);
    expect(textOf(server.chatRequests()[1]?.body?.messages?.[2])).toContain('(whole output): not valid JSON');
  });

  it('switches to a forced tool call for good when the server rejects json_schema', async () => {
    const meter = new UsageMeter();
    const { server, client, events } = await startServerAndClient({
      server: { supportsResponseFormat: false },
      client: { meter },
    });
    server.enqueue(
      { type: 'tool-calls', calls: [{ name: 'step_card', arguments: GOOD }] },
      { type: 'tool-calls', calls: [{ name: 'step_card', arguments: { ...GOOD, i: 1 } }] },
    );

    const first = await client.structured({ name: 'step_card', schema: StepCard, messages });
    const second = await client.structured({ name: 'step_card', schema: StepCard, messages });

    expect(first.value).toEqual(GOOD);
    expect(second.value.i).toBe(1);
    const bodies = server.chatRequests().map((r) => r.body);
    expect(bodies.map((b) => (b?.response_format ? 'json_schema' : 'tool'))).toEqual([
      'json_schema',
      'tool',
      'tool',
    ]);
    expect(bodies[1]?.tools?.[0]?.function.name).toBe('step_card');
    expect(bodies[1]?.tool_choice).toEqual({ type: 'function', function: { name: 'step_card' } });
    expect(events.filter((e) => e.type === 'mode-fallback')).toEqual([
      expect.objectContaining({
        from: 'json_schema',
        to: 'tool',
        reason: expect.stringContaining('HTTP 400'),
      }),
    ]);
    expect(meter.snapshot()).toMatchObject({ calls: 2, requests: 3 });
  });

  it('repairs invalid forced-tool arguments with a tool result naming the path', async () => {
    const { server, client } = await startServerAndClient({ flags: { structuredMode: 'tool' } });
    server.enqueue(
      { type: 'tool-calls', calls: [{ name: 'step_card', arguments: { ...GOOD, intent: 42 } }] },
      { type: 'tool-calls', calls: [{ name: 'step_card', arguments: GOOD }] },
    );

    const result = await client.structured({ name: 'step_card', schema: StepCard, messages });

    expect(result.value).toEqual(GOOD);
    const repair = server.chatRequests()[1]?.body?.messages ?? [];
    expect(repair[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1_0' }] });
    expect(repair[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1_0' });
    expect(textOf(repair[2])).toContain('- intent: Invalid input: expected string, received number');
  });

  it('sends schemas strict mode cannot express as non-strict JSON Schema', async () => {
    const { server, client } = await startServerAndClient();
    const Loose = z.object({ text: z.string(), note: z.string().optional() });
    server.enqueue({ type: 'json', value: { text: 'hi' } });

    const result = await client.structured({ name: 'loose', schema: Loose, messages });

    expect(result.value).toEqual({ text: 'hi' });
    expect(server.chatRequests()[0]?.body?.response_format?.json_schema).toMatchObject({
      strict: false,
      schema: { required: ['text'] },
    });
  });
});
