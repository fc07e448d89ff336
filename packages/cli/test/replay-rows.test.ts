import { describe, expect, it } from 'vitest';
import { splitSharedAdvice } from '../src/commands/replay-rows.ts';

const NO_MODEL =
  'Auto mode stops here: no model is configured to take over (set MIME_BASE_URL and MIME_MODEL, or a config file, and auto hands such a step to a vision model).';

describe('the failed rows of a batch', () => {
  it('say the advice their reasons share once, after them', () => {
    const reasons = [
      `step 3 (left_click at (562, 194)): the recorded target was not found (68% where 90% is needed). ${NO_MODEL}`,
      `step 1 (type "x"): the screen did not change as recorded. ${NO_MODEL}`,
    ];
    expect(splitSharedAdvice(reasons)).toEqual({
      reasons: [
        'step 3 (left_click at (562, 194)): the recorded target was not found (68% where 90% is needed).',
        'step 1 (type "x"): the screen did not change as recorded.',
      ],
      advice: NO_MODEL,
    });
  });

  it('keep every reason whole when their last sentences differ, or there is one row', () => {
    const reasons = ['a failed. Try A.', 'b failed. Try B.'];
    expect(splitSharedAdvice(reasons)).toEqual({ reasons, advice: null });
    expect(splitSharedAdvice([`x. ${NO_MODEL}`])).toEqual({ reasons: [`x. ${NO_MODEL}`], advice: null });
    expect(splitSharedAdvice(['no sentence', 'no sentence'])).toEqual({
      reasons: ['no sentence', 'no sentence'],
      advice: null,
    });
  });
});
