import { describe, expect, it } from 'vitest';
import { executeAction } from '../src/actions/execute-action.ts';
import { createFakeDesktop } from './fake-desktop.ts';

describe('a long action', () => {
  it('is done in parts: a scroll in tens of notches, a text in 200 characters', async () => {
    const desktop = createFakeDesktop();
    await executeAction(desktop, { action: 'scroll', direction: 'down', amount: 25, point: null }, String);
    await executeAction(desktop, { action: 'type', text: 'é'.repeat(450) }, String);
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
      String,
      null,
      run.signal,
    );
    run.abort(new Error('wall time'));
    await expect(scrolling).rejects.toThrow('wall time');
    expect(desktop.inputs.length).toBeLessThanOrEqual(1);
  });
});
