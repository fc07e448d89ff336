import { describe, expect, it } from 'vitest';
import { executeAction, toExecuted } from '../src/actions/execute-action.ts';
import { TypedText } from '../src/kernel/typed-text.ts';
import { createFakeDesktop } from './fake-desktop.ts';

describe('a long action', () => {
  it('is done in parts: a scroll in tens of notches, a text in 200 characters', async () => {
    const desktop = createFakeDesktop();
    await executeAction(desktop, { action: 'scroll', direction: 'down', amount: 25, point: null });
    await executeAction(desktop, toExecuted({ action: 'type', text: 'é'.repeat(450) }));
    expect(desktop.inputs.map((input) => input.slice(0, 14))).toEqual([
      'scroll down 10',
      'scroll down 10',
      'scroll down 5',
      `type ${'é'.repeat(9)}`,
      `type ${'é'.repeat(9)}`,
      `type ${'é'.repeat(9)}`,
    ]);
    expect(desktop.inputs.slice(3).map((input) => input.length - 'type '.length)).toEqual([200, 200, 50]);
  });

  it('stops between two parts once the run is over (its wall time)', async () => {
    const desktop = createFakeDesktop();
    const run = new AbortController();
    const scrolling = executeAction(
      desktop,
      { action: 'scroll', direction: 'down', amount: 1000, point: null },
      null,
      run.signal,
    );
    run.abort(new Error('wall time'));
    await expect(scrolling).rejects.toThrow('wall time');
    expect(desktop.inputs.length).toBeLessThanOrEqual(1);
  });
});

describe('a typing action', () => {
  it('types the secret its text carries where the text is shown, and shows only the placeholder', async () => {
    const desktop = createFakeDesktop();
    const typed = new TypedText('pw {password}', 'pw hunter2');
    const action = toExecuted({ action: 'type', text: 'pw {password}' }, typed);
    // Whatever writes the action (an event, a report) writes the text as shown.
    expect(JSON.stringify(action)).toBe('{"action":"type","text":"pw {password}"}');
    expect(`${typed}`).toBe('pw {password}');
    await executeAction(desktop, action);
    // A text that is not the one the secret came with (the recorded text, an edited value) is typed as it is.
    await executeAction(desktop, toExecuted({ action: 'type', text: 'other {password}' }, typed));
    expect(desktop.inputs).toEqual(['type pw hunter2', 'type other {password}']);
  });
});
