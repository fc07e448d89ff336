/** The agent's replies as the fake model server gives them: a `computer_use` action, or another tool's call. */
import type { FakeReply } from '@mime-desktop/test-support/fake-model-server';

/** A `computer_use` call with `args` (the action and its values; the rest null). */
export const act = (args: Record<string, unknown>): FakeReply => ({
  type: 'tool-calls',
  calls: [
    {
      name: 'computer_use',
      arguments: {
        observation: 'obs',
        task_memory: 'mem',
        coordinate: null,
        end_coordinate: null,
        text: null,
        keys: null,
        scroll_direction: null,
        scroll_amount: null,
        wait_seconds: null,
        ...args,
      },
    },
  ],
});

/** A call of the tool `name` (`extract`, `done`, `replan`) with `args`. */
export const tool = (name: string, args: Record<string, unknown> = {}): FakeReply => ({
  type: 'tool-calls',
  calls: [{ name, arguments: { observation: 'obs', task_memory: 'mem', ...args } }],
});
