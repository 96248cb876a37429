import { describe, expect, it } from 'vitest';
import { barCount } from './bar-count';

describe('barCount', () => {
  it('counts every waiting call, as the badges do, answered ones included', () => {
    expect(barCount(1, 0, false)).toBe('1 tool call waits for your decision');
    expect(barCount(3, 0, false)).toBe('3 tool calls wait for your decision');
    // Two of three answered on their cards: still 3, like the tab's badge, not 1.
    expect(barCount(3, 2, false)).toBe('3 tool calls wait for your decision · 2 answered, sent with the last');
  });

  it('says "sending" only while the answers are on their way, and says so when they were not sent', () => {
    expect(barCount(2, 2, true)).toBe('Sending your decisions…');
    expect(barCount(2, 2, false)).toBe('Your decisions were not sent — change one to send them again');
  });
});
