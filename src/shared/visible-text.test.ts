import { describe, expect, it } from 'vitest';
import { visibleText } from './visible-text';

describe('visibleText', () => {
  it('keeps plain text, tabs and newlines as they are', () => {
    expect(visibleText('Open the page <b>first</b>.\n\tThen retry.')).toBe(
      'Open the page <b>first</b>.\n\tThen retry.',
    );
  });

  it('shows escapes, C1 controls and bidirectional overrides instead of letting them act', () => {
    expect(visibleText('ok\u001b[2J\u202egnp.exe\u0085')).toBe('ok\\u{001b}[2J\\u{202e}gnp.exe\\u{0085}');
  });

  it('cuts a long text and says how much is left', () => {
    expect(visibleText('a'.repeat(2_010), 2_000)).toBe(`${'a'.repeat(2_000)}… (10 more characters)`);
  });
});
