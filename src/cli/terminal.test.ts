import { describe, expect, it } from 'vitest';
import { colorsEnabled, createColors, renderForTerminal, table, visibleLength } from './terminal';

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
    expect(
      table([
        ['\u001b[1mA\u001b[22m', 'B'],
        ['long', 'x'],
      ]),
    ).toBe('\u001b[1mA\u001b[22m     B\nlong  x');
  });

  it("aligns columns of the CLI's own colours, and of text whose escape sequences the sink will remove", () => {
    const colors = createColors(true);
    expect(visibleLength(colors.bold('Name'))).toBe(4);
    expect(visibleLength('\u001b[2J\u001b[31mFAKE')).toBe(4);
    expect(
      renderForTerminal(
        table([
          [colors.bold('A'), 'B'],
          ['long', 'x'],
        ]),
      ),
    ).toBe('\u001b[1mA\u001b[22m     B\nlong  x');
  });
});

describe('what reaches the terminal', () => {
  const colors = createColors(true);

  it("keeps the CLI's own colours and removes everybody else's escape sequences, colours included", () => {
    const external = '\u001b[2J\u001b[31mFAKE: Allowed once\u001b[0m';
    expect(renderForTerminal(`${colors.green('→ Allowed once')} ${external}`)).toBe(
      '\u001b[32m→ Allowed once\u001b[39m FAKE: Allowed once',
    );
    expect(renderForTerminal(colors.dim(`· ${external}`))).toBe('\u001b[2m· FAKE: Allowed once\u001b[22m');
  });

  it('reopens an outer style after an inner one closes, as picocolors does', () => {
    expect(renderForTerminal(colors.bold(`a ${colors.dim('b')} c`))).toBe(
      '\u001b[1ma \u001b[2mb\u001b[22m\u001b[1m c\u001b[22m',
    );
  });

  it('no colours at all when they are off, and text cannot forge one of the CLI’s marks', () => {
    const plain = createColors(false);
    expect(renderForTerminal(plain.red('x'))).toBe('x');
    const forged = '\ue000deadbeefdeadbeef\ue00131mred?';
    expect(renderForTerminal(forged)).toBe(forged);
    expect(renderForTerminal(forged)).not.toContain('\u001b');
  });
});
