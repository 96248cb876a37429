/** Pool proxy frames' slots (docs/user/mcp-apps.md#in-the-audit-log): bound once, to one view, by the page alone. */
import { describe, expect, it } from 'vitest';
import { createAppFrameSlots } from './app-frame-slots';

const SLOT = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('app frame slots', () => {
  it('knows no view for a slot until one is bound, then that view', () => {
    const slots = createAppFrameSlots();
    expect(slots.viewOf(SLOT)).toBeUndefined();
    slots.bind({ slot: SLOT, chatId: 'c1', viewCallId: 'call_1' });
    expect(slots.viewOf(SLOT)).toEqual({ chatId: 'c1', viewCallId: 'call_1' });
    expect(slots.viewOf('BBBBBBBBBBBBBBBBBBBBBB')).toBeUndefined();
  });

  it('refuses a second binding of a slot, to another view or the same one, and keeps the first', () => {
    const slots = createAppFrameSlots();
    slots.bind({ slot: SLOT, chatId: 'c1', viewCallId: 'call_1' });
    expect(() => slots.bind({ slot: SLOT, chatId: 'c2', viewCallId: 'call_2' })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(() => slots.bind({ slot: SLOT, chatId: 'c1', viewCallId: 'call_1' })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(slots.viewOf(SLOT)).toEqual({ chatId: 'c1', viewCallId: 'call_1' });
  });
});
