import { describe, expect, it } from 'vitest';
import { colorsEnabled, table, visibleLength } from './terminal';

describe('terminal manners', () => {
  it('uses colours only on a terminal, never with NO_COLOR (which beats FORCE_COLOR), and not on a dumb terminal', () => {
    expect(colorsEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorsEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorsEnabled({}, {})).toBe(false);
    expect(colorsEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorsEnabled({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    // An empty NO_COLOR does not count (no-color.org).
    expect(colorsEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorsEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorsEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('aligns columns by what shows, not by colour codes', () => {
    expect(visibleLength('\u001b[1mName\u001b[22m')).toBe(4);
    expect(table([['\u001b[1mA\u001b[22m', 'B'], ['long', 'x']])).toBe('\u001b[1mA\u001b[22m     B\nlong  x');
  });
});
