import { describe, expect, it } from 'vitest';
import { isInsideFolder } from '../src/paths.ts';

describe('isInsideFolder', () => {
  it('is the folder itself and what lies under it, by name', () => {
    expect(isInsideFolder('/w/flow', '/w/flow')).toBe(true);
    expect(isInsideFolder('/w/flow', '/w/flow/.replay/run-1')).toBe(true);
    // A name that only begins with two dots is inside.
    expect(isInsideFolder('/w/flow', '/w/flow/..runs')).toBe(true);
  });

  it('is not a parent, a sibling or a folder that only begins alike', () => {
    expect(isInsideFolder('/w/flow', '/w')).toBe(false);
    expect(isInsideFolder('/w/flow', '/w/flow-runs')).toBe(false);
    expect(isInsideFolder('/w/flow', '/w/flow/../other')).toBe(false);
  });
});
