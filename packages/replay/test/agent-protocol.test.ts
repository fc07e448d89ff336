import { describe, expect, it } from 'vitest';
import { type AgentCall, canonicalCall, revisedPlanFor } from '../src/agent/agent-tools.ts';
import { UnusableReplies } from '../src/agent/unusable-replies.ts';
import { ModelProtocolError } from '../src/errors.ts';

describe('UnusableReplies', () => {
  const problems = [{ path: '', message: 'no tool call' }];

  it('stops the run at the limit of unusable replies in a row, quoting the last one', () => {
    const replies = new UnusableReplies(3);
    replies.unusable(2, 'first', problems);
    expect(replies.left).toBe(1);
    let error: unknown;
    try {
      replies.unusable(1, 'I will click the field.', problems);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ModelProtocolError);
    expect((error as ModelProtocolError).code).toBe('MIME_MODEL_OUTPUT');
    expect((error as Error).message).toContain('3 unusable replies in a row');
    expect((error as Error).message).toContain('Its last reply: I will click the field.');
    expect((error as Error).message).toContain('mime doctor --model');
  });

  it('starts again after a usable reply', () => {
    const replies = new UnusableReplies(3);
    replies.unusable(2, 'x', problems);
    replies.usable();
    replies.unusable(2, 'y', problems);
    expect(replies.left).toBe(1);
  });

  it('cuts a long last reply', () => {
    const replies = new UnusableReplies(1);
    expect(() => replies.unusable(1, 'a'.repeat(5000), problems)).toThrow(/a{600}…/);
  });
});

describe('revisedPlanFor', () => {
  const task = { name: 'play a song', description: 'Search the demo player and play the song.' };
  const remaining = [{ text: 'Play Faint from the results. Expected outcome: it plays.' }];
  const plan = (...texts: string[]) => ({
    observation: 'The player.',
    subtasks: texts.map((text) => ({ text, reference_steps: [], extracts: [] })),
  });

  it('takes a plan that describes the remaining work', () => {
    const schema = revisedPlanFor(remaining, task);
    expect(
      schema.safeParse(plan('Click the Play button of Faint. Expected outcome: Faint plays.')).success,
    ).toBe(true);
  });

  it('refuses a placeholder plan and a subtask that is no instruction', () => {
    const schema = revisedPlanFor(remaining, task);
    const placeholder = schema.safeParse(plan('held-out text goes here'));
    expect(placeholder.success).toBe(false);
    expect(placeholder.error?.issues.map((i) => i.message)).toContain(
      'the plan names nothing of the task or of the remaining plan: write the real remaining subtasks, not a placeholder',
    );
    const short = schema.safeParse(plan('Play Faint'));
    expect(short.error?.issues[0]?.message).toContain('"Play Faint" is not an instruction');
  });
});

describe('canonicalCall', () => {
  const terminate = (status: string): AgentCall =>
    ({
      name: 'computer_use',
      args: { action: 'terminate', status, observation: 'Faint plays.', task_memory: null },
      dropped: [],
    }) as unknown as AgentCall;

  it("reads Qwen's terminate as done (success) or a request for a new plan (failure)", () => {
    expect(canonicalCall(terminate('success'))).toEqual({
      name: 'done',
      args: { observation: 'Faint plays.', task_memory: null, result: null },
      dropped: [],
    });
    expect(canonicalCall(terminate('failure'))).toMatchObject({
      name: 'replan',
      args: { reason: 'Faint plays.' },
    });
  });
});
