import type { WorkflowStep } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { unsetValueOf, unsetWithoutRecording } from '../src/recorded/unset-value.ts';

const step = (fields: Partial<WorkflowStep>): WorkflowStep => ({
  i: 0,
  expected_current_state: '',
  intent: 'Type the text.',
  target: { primary: 'the field', fallback: null },
  action_type: 'TYPE',
  action_value: null,
  post_action: [],
  variable_name: null,
  source: null,
  ...fields,
});

describe('a TYPE or KEYPRESS step without a value', () => {
  const extracted = new Map([
    ['extract_0', 'Corner Cafe'],
    ['extract_10', 'nope'],
  ]);

  it('types the upstream extract it names, else what the recording typed', () => {
    const named = unsetValueOf(step({ intent: 'Type the merchant from extract_0.' }), extracted);
    expect(named?.note).toBe(
      'its text is not in the workflow: typed extract_0, the value extracted earlier that it names',
    );
    // Typed as it is: shown and typed alike.
    expect(named?.typed).toMatchObject({ shown: 'Corner Cafe', value: 'Corner Cafe' });
    expect(unsetValueOf(step({ intent: 'Type the cost.' }), extracted)).toEqual({
      typed: null,
      note: 'its text is not in the workflow: typed what the recording typed',
    });
    // A name that only starts like an extract's is not that extract.
    expect(unsetValueOf(step({ intent: 'Type extract_1.' }), extracted)?.typed).toBeNull();
  });

  it('presses what the recording pressed, and leaves steps with a value alone', () => {
    expect(unsetValueOf(step({ action_type: 'KEYPRESS' }), extracted)?.note).toBe(
      'its keys are not in the workflow: pressed what the recording pressed',
    );
    expect(unsetValueOf(step({ action_value: 'hello' }), extracted)).toBeNull();
    expect(unsetValueOf(step({ action_type: 'CLICK' }), extracted)).toBeNull();
  });

  it('says the model decides it when there is no recording', () => {
    expect(unsetWithoutRecording([step({ action_type: 'CLICK' }), step({ i: 1 })])).toBe(
      '; step 1 (TYPE) has no value in the workflow either: the model decides it',
    );
    expect(unsetWithoutRecording([step({ i: 1 }), step({ i: 2, action_type: 'KEYPRESS' })])).toBe(
      '; steps 1 (TYPE), 2 (KEYPRESS) have no value in the workflow either: the model decides them',
    );
    expect(unsetWithoutRecording([step({ action_value: 'x' })])).toBe('');
  });
});
