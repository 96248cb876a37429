import { describe, expect, it } from 'vitest';
import { restorableBounds } from './window-state';

const laptop = { x: 0, y: 0, width: 1440, height: 900 };
const external = { x: 1440, y: 0, width: 2560, height: 1440 };

describe('restorable window bounds', () => {
  it('restores bounds that are on a display', () => {
    const bounds = { x: 100, y: 80, width: 1200, height: 800 };
    expect(restorableBounds(bounds, [laptop])).toEqual(bounds);
    expect(restorableBounds({ x: 2000, y: 100, width: 1200, height: 800 }, [laptop, external])).toEqual({
      x: 2000,
      y: 100,
      width: 1200,
      height: 800,
    });
  });

  it('forgets bounds on a display that was unplugged', () => {
    expect(restorableBounds({ x: 2000, y: 100, width: 1200, height: 800 }, [laptop])).toBeUndefined();
  });

  it('forgets bounds that show only a sliver of the window', () => {
    expect(restorableBounds({ x: 1400, y: 0, width: 1200, height: 800 }, [laptop])).toBeUndefined();
  });

  it('forgets bounds smaller than the window may be, and missing bounds', () => {
    expect(restorableBounds({ x: 0, y: 0, width: 300, height: 200 }, [laptop])).toBeUndefined();
    expect(restorableBounds(undefined, [laptop])).toBeUndefined();
  });
});
