import { describe, expect, it } from 'vitest';
import { reportedScale } from '../src/atspi-extents.ts';

// FeatherPad under QT_SCALE_FACTOR=1.25 (measured): the X window 875x625 at (203, 115) reports itself
// as 700x500 at (162, 92).
const qtWindow = { x: 162, y: 92, width: 700, height: 500 };
const screen = [
  { x: 0, y: 0, width: 1280, height: 800 },
  { x: 202, y: 95, width: 877, height: 646 },
  { x: 203, y: 115, width: 875, height: 625 },
];

describe('reportedScale', () => {
  it('tells a scaled app by the window on the screen its reported box maps to', () => {
    expect(reportedScale([qtWindow], screen)).toBe(1.25);
    expect(
      reportedScale(
        [{ x: 195, y: 159, width: 251, height: 121 }],
        [{ x: 390, y: 318, width: 502, height: 242 }],
      ),
    ).toBe(2);
  });

  it('says 1 for an app that reports screen pixels, even beside a window twice its size', () => {
    expect(
      reportedScale(
        [{ x: 100, y: 100, width: 400, height: 300 }],
        [
          { x: 200, y: 200, width: 800, height: 600 },
          { x: 100, y: 100, width: 400, height: 300 },
        ],
      ),
    ).toBe(1);
  });

  it('tells nothing when no window matches in size and place alike', () => {
    // The right size at 1.25x, but elsewhere.
    expect(reportedScale([qtWindow], [{ x: 400, y: 115, width: 875, height: 625 }])).toBeNull();
    // Tiny or empty windows tell nothing.
    expect(reportedScale([{ x: 0, y: 0, width: 0, height: 0 }], screen)).toBeNull();
    expect(reportedScale([], screen)).toBeNull();
  });
});
