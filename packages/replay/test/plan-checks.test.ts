import { describe, expect, it } from 'vitest';
import { checksBySubtask } from '../src/kernel/plan.ts';

describe("the checks of an optimized plan (ai_mime's Pass C)", () => {
  it('go to every subtask a step was made from, in order, blank ones left out', () => {
    const checks = checksBySubtask({
      inputs: [],
      constants: {},
      steps: [
        { id: 'a', source_subtask_ids: [0, 1], success_criteria: 'A folder exists.' },
        { id: 'b', source_subtask_ids: [1], success_criteria: 'The file is in it.' },
        { id: 'c', source_subtask_ids: [2], success_criteria: '  ' },
      ],
    });
    expect([...checks]).toEqual([
      [0, ['A folder exists.']],
      [1, ['A folder exists.', 'The file is in it.']],
    ]);
    expect(checksBySubtask(null).size).toBe(0);
  });
});
