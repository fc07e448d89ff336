import { describe, expect, it } from 'vitest';
import { contentOffset, parseCardinals } from '../src/x-window-origin.ts';

describe('contentOffset', () => {
  it('steps past the shadow a CSD window declares (_GTK_FRAME_EXTENTS: left, right, top, bottom)', () => {
    expect(contentOffset({ width: 852, height: 646 }, { width: 800, height: 600 }, [26, 26, 23, 23])).toEqual(
      {
        x: 26,
        y: 23,
      },
    );
  });

  it('takes half of what the X window is larger as a border all round where none is declared', () => {
    // gtk4-widget-factory under Xvfb (measured): an X window of 1342x800 around content of 1332x790.
    expect(contentOffset({ width: 1342, height: 800 }, { width: 1332, height: 790 }, null)).toEqual({
      x: 5,
      y: 5,
    });
  });

  it('is none for an X window smaller than the content (another window)', () => {
    expect(contentOffset({ width: 300, height: 200 }, { width: 400, height: 200 }, null)).toBeNull();
  });
});

describe('parseCardinals', () => {
  it('reads the numbers xprop prints, and none for a property not set', () => {
    expect(parseCardinals('_GTK_FRAME_EXTENTS(CARDINAL) = 26, 26, 23, 23\n')).toEqual([26, 26, 23, 23]);
    expect(parseCardinals('_NET_WM_PID(CARDINAL) = 4242')).toEqual([4242]);
    expect(parseCardinals('_GTK_FRAME_EXTENTS:  not found.')).toBeNull();
  });
});
