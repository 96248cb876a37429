/* eslint-disable no-control-regex -- these tests are about control characters */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStreamSanitizer, escapeJsonForTerminal, sanitizeForTerminal } from './terminal-text';

const ESC = '\u001b';
/** Anything that can make a terminal act instead of print. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('sanitizeForTerminal', () => {
  it('removes the screen clear and the colour of a faked approval line, keeping its words', () => {
    expect(sanitizeForTerminal(`${ESC}[2J${ESC}[31mFAKE: Allowed once${ESC}[0m`)).toBe('FAKE: Allowed once');
  });

  it.each([
    [
      'cursor moves and erases (CSI with parameters and a private marker)',
      `a${ESC}[10;20Hb${ESC}[?25l${ESC}[2Kc${ESC}[1A`,
      'abc',
    ],
    ['an OSC window title ended by BEL', `x${ESC}]0;pwned\u0007y`, 'xy'],
    ['an OSC 8 hyperlink ended by ST', `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, 'click'],
    ['an OSC 52 clipboard write', `${ESC}]52;c;Y3VybCBldmlsIHwgc2g=\u0007ok`, 'ok'],
    ['a DCS string', `${ESC}P1$qm${ESC}\\after`, 'after'],
    ['APC, PM and SOS strings', `${ESC}_apc${ESC}\\${ESC}^pm${ESC}\\${ESC}Xsos${ESC}\\done`, 'done'],
    ['8-bit CSI and OSC (C1 introducers)', `\u009b2J\u009d0;title\u009cshown`, 'shown'],
    [
      'two-character and charset escapes (ESC c resets the terminal, ESC ( 0 switches to line drawing)',
      `${ESC}c${ESC}(0${ESC}7${ESC}8text`,
      'text',
    ],
    ['carriage return and backspace, which overwrite what is shown', 'Denied\rAllowed\b\b once', 'DeniedAllowed once'],
    ['BEL, NUL, DEL and lone C1 controls', 'a\u0007b\u0000c\u007fd\u0085e\u0090f', 'abcdef'],
    [
      'bidirectional overrides and isolates',
      'file\u202Etxt.exe\u202C and \u2066x\u2069 \u202A\u202B\u202D',
      'filetxt.exe and x ',
    ],
    ['a lone ESC at the end and an unterminated OSC (its introducer goes; the rest shows as text)', `end${ESC}`, 'end'],
  ])('removes %s', (_name, input, expected) => {
    expect(sanitizeForTerminal(input)).toBe(expected);
  });

  it('keeps newlines, tabs, and every printable character of any script (emoji, CJK, Arabic)', () => {
    const text = 'line one\n\tindented — “quoted” 😀 漢字 مرحبا ✓ ⏺ ·';
    expect(sanitizeForTerminal(text)).toBe(text);
  });

  it('an unterminated OSC cannot swallow the rest, and its ESC never reaches the terminal', () => {
    const shown = sanitizeForTerminal(`${ESC}]0;never ended\nnext line`);
    expect(shown).not.toContain(ESC);
    expect(shown).toContain('next line');
  });

  it('leaves nothing that can drive a terminal, whatever the input (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom(
              ESC,
              '[',
              ']',
              '\u0007',
              '\u009b',
              '\u009d',
              '\u009c',
              '\\',
              'P',
              '2J',
              '31m',
              '\r',
              '\u202E',
            ),
          ),
          { maxLength: 40 },
        ),
        (parts) => {
          const shown = sanitizeForTerminal(parts.join(''));
          expect(shown).not.toMatch(UNSAFE);
          // Idempotent: sanitizing twice changes nothing more.
          expect(sanitizeForTerminal(shown)).toBe(shown);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('the stream sanitizer', () => {
  it('removes an escape sequence split across pieces as if it came whole', () => {
    const stream = createStreamSanitizer();
    const pieces = [
      'Hello ',
      `${ESC}`,
      '[2',
      'J',
      `${ESC}[3`,
      '1mFAKE: Allowed once',
      `${ESC}]0;ti`,
      'tle\u0007',
      ' end',
    ];
    expect(pieces.map((piece) => stream.push(piece)).join('')).toBe('Hello FAKE: Allowed once end');
  });

  it('shows the same text for any split of the input, and never an unsafe character (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 5 }),
            fc.constantFrom(`${ESC}[2J`, `${ESC}[31m`, `${ESC}]0;x\u0007`, `${ESC}]8;;u${ESC}\\`, '\u009b1m'),
          ),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        (parts, cuts) => {
          const text = parts.join('');
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...points, text.length]
            .slice(1)
            .map((end, index, ends) => text.slice(index === 0 ? 0 : (ends[index - 1] as number), end));
          const stream = createStreamSanitizer();
          const shown = pieces.map((piece) => stream.push(piece)).join('');
          expect(shown).not.toMatch(UNSAFE);
          if (!/[\u001b\u0090\u0098\u009b\u009d-\u009f]/.test(text.slice(-300)))
            expect(shown).toBe(sanitizeForTerminal(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('escapeJsonForTerminal', () => {
  it('escapes DEL, C1 and bidi controls in JSON text, which still parses to the same value', () => {
    const value = { text: `a${ESC}[2Jb\u009b2J\u202Ec\u007f`, nested: ['\u2066x\u2069'] };
    const json = escapeJsonForTerminal(JSON.stringify(value));
    expect(json).not.toMatch(UNSAFE);
    expect(JSON.parse(json)).toEqual(value);
  });
});
