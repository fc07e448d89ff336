import type { HookEvent } from '@mime-desktop/os-io';
import { describe, expect, it } from 'vitest';
import { ActionAggregator, type RecordedAction } from '../src/aggregate.ts';

/** Feeds events (times in ms) and returns what came out, after a final tick and flush. */
function aggregate(events: HookEvent[], options: { secretFrom?: number } = {}): RecordedAction[] {
  const out: RecordedAction[] = [];
  let now = 0;
  const aggregator = new ActionAggregator((a) => out.push(a), {
    isSecret: () => options.secretFrom !== undefined && now >= options.secretFrom,
  });
  for (const event of events) {
    now = event.time;
    aggregator.tick(now);
    aggregator.push(event);
  }
  aggregator.tick(now + 10_000);
  aggregator.flush();
  return out;
}

const down = (
  time: number,
  x: number,
  y: number,
  button: 'left' | 'right' | 'middle' = 'left',
): HookEvent => ({
  type: 'mousedown',
  button,
  x,
  y,
  clicks: 1,
  time,
  modifiers: [],
});
const up = (time: number, x: number, y: number, button: 'left' | 'right' | 'middle' = 'left'): HookEvent => ({
  type: 'mouseup',
  button,
  x,
  y,
  clicks: 1,
  time,
  modifiers: [],
});
const move = (time: number, x: number, y: number): HookEvent => ({
  type: 'mousemove',
  x,
  y,
  time,
  modifiers: [],
});
const key = (
  time: number,
  name: string,
  modifiers: Array<'ctrl' | 'alt' | 'shift' | 'meta'> = [],
): HookEvent => ({
  type: 'keydown',
  key: name,
  keycode: 0,
  time,
  modifiers,
});
const wheel = (time: number, direction: 'up' | 'down', amount = 1): HookEvent => ({
  type: 'wheel',
  direction,
  amount,
  x: 100,
  y: 200,
  time,
  modifiers: [],
});

describe('ActionAggregator', () => {
  it('tells clicks, double clicks, right and middle clicks apart', () => {
    const actions = aggregate([
      down(0, 10, 10),
      up(50, 10, 10),
      down(1000, 20, 20),
      up(1040, 20, 20),
      down(1200, 21, 20),
      up(1240, 21, 20),
      down(2000, 30, 30, 'right'),
      up(2050, 30, 30, 'right'),
      down(3000, 40, 40, 'middle'),
      up(3050, 40, 40, 'middle'),
    ]);
    expect(actions.map((a) => [a.action_type, a.action_details, a.time])).toEqual([
      ['click', { button: 'left', x: 10, y: 10 }, 0],
      ['double_click', { button: 'left', x: 20, y: 20 }, 1000],
      ['right_click', { button: 'right', x: 30, y: 30 }, 2000],
      ['middle_click', { button: 'middle', x: 40, y: 40 }, 3000],
    ]);
  });

  it('keeps two slow clicks as two clicks', () => {
    const actions = aggregate([down(0, 10, 10), up(40, 10, 10), down(900, 10, 10), up(950, 10, 10)]);
    expect(actions.map((a) => a.action_type)).toEqual(['click', 'click']);
  });

  it('makes a press, a move past the threshold and a release one drag', () => {
    const actions = aggregate([
      down(0, 100, 100),
      move(20, 104, 100),
      move(40, 150, 120),
      move(60, 300, 200),
      up(80, 300, 200),
    ]);
    expect(actions).toEqual([
      {
        action_type: 'drag',
        action_details: { button: 'left', x: 100, y: 100, to_x: 300, to_y: 200 },
        time: 0,
      },
    ]);
  });

  it('joins a typing burst, applies Backspace and shifted characters', () => {
    const actions = aggregate([
      down(0, 5, 5),
      up(30, 5, 5),
      key(500, 'n', ['shift']),
      key(600, 'u'),
      key(700, 'x'),
      key(750, 'backspace'),
      key(800, 'm'),
      key(900, 'b'),
      key(950, '1', ['shift']),
      key(1000, 'space'),
      key(1100, '/'),
      key(1200, 'enter'),
    ]);
    expect(actions.map((a) => [a.action_type, a.action_details, a.time])).toEqual([
      ['click', { button: 'left', x: 5, y: 5 }, 0],
      ['type', { text: 'Numb! /', secret: false }, 500],
      ['key', { key: 'enter' }, 1200],
    ]);
  });

  it('records chords with modifiers as keys, not letters', () => {
    const actions = aggregate([
      key(0, 'ctrl'),
      key(10, 'a', ['ctrl']),
      key(100, 'backspace'),
      key(200, 't', ['ctrl', 'shift']),
      key(300, 'tab', ['shift']),
      key(400, 'f5'),
    ]);
    expect(actions.map((a) => a.action_details)).toEqual([
      { key: 'ctrl+a' },
      { key: 'backspace' },
      { key: 'ctrl+shift+t' },
      { key: 'shift+tab' },
      { key: 'f5' },
    ]);
  });

  it('sums a scroll burst and splits bursts on a pause', () => {
    const actions = aggregate([
      wheel(0, 'down'),
      wheel(100, 'down', 2),
      wheel(200, 'up'),
      wheel(2000, 'up', 3),
    ]);
    expect(actions.map((a) => [a.action_details, a.time])).toEqual([
      [{ x: 100, y: 200, dx: 0, dy: 2 }, 0],
      [{ x: 100, y: 200, dx: 0, dy: -3 }, 2000],
    ]);
  });

  it('keeps a burst whole when its notches come after a stall, and splits it when its input paused', () => {
    // The recorder stalls from 200 to 1400 ms; a notch given during it is delivered `deliveredAt`.
    const run = (lateNotch: number, deliveredAt = 1400) => {
      const out: RecordedAction[] = [];
      const aggregator = new ActionAggregator((a) => out.push(a));
      aggregator.push(wheel(0, 'down'));
      for (let now = 50; now <= 200; now += 50) aggregator.tick(now);
      for (let now = 1400; now <= 2500; now += 50) {
        aggregator.tick(now);
        if (now === deliveredAt) aggregator.push(wheel(lateNotch, 'down', 2));
      }
      return out.map((a) => a.action_details);
    };
    expect(run(300)).toEqual([{ x: 100, y: 200, dx: 0, dy: 3 }]);
    // The hook's thread, slower to wake than the timers, delivers it 200 ms after the stall.
    expect(run(300, 1600)).toEqual([{ x: 100, y: 200, dx: 0, dy: 3 }]);
    expect(run(1300)).toEqual([
      { x: 100, y: 200, dx: 0, dy: 1 },
      { x: 100, y: 200, dx: 0, dy: 2 },
    ]);
  });

  it('never keeps the text of secret typing', () => {
    const actions = aggregate(
      [
        key(0, 'u'),
        key(100, 's'),
        key(1000, 'p'),
        key(1100, 'w'),
        key(1150, 'backspace'),
        key(1200, 'enter'),
      ],
      {
        secretFrom: 1000,
      },
    );
    expect(actions.map((a) => a.action_details)).toEqual([
      { text: 'us', secret: false },
      { text: '', secret: true },
      { key: 'enter' },
    ]);
  });
});
