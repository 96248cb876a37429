/**
 * Text that did not come from the CLI itself (model replies, tool and server names and descriptions, arguments,
 * results, errors, log lines) must not drive the terminal: an `ESC[2J ESC[31mFAKE: Allowed once` in a file
 * the model reads would clear the screen and fake words beside the approval prompt. Every CLI output path
 * passes its text through `sanitizeForTerminal` (the sinks in terminal.ts do); the CLI's own colours survive
 * because they are not escape codes until the sink turns them into some (see terminal.ts, `renderForTerminal`).
 * docs/user/cli.md, "What reaches your terminal".
 */

/* eslint-disable no-control-regex -- matching control characters is the point of this file */

/**
 * Escape sequences (ECMA-48), in their 7-bit (ESC …) and 8-bit (C1) forms:
 * - CSI: ESC [ or 0x9B, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E;
 * - command strings: OSC (ESC ] / 0x9D), DCS (ESC P / 0x90), SOS (ESC X / 0x98), PM (ESC ^ / 0x9E),
 *   APC (ESC _ / 0x9F), up to ST (ESC \ or 0x9C) or BEL, as xterm ends an OSC;
 * - any other ESC sequence: intermediate bytes, then one final byte 0x30–0x7E.
 */
const SEQUENCE =
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c)|\x1b[\x20-\x2f]*[\x30-\x7e]/g;

/**
 * What is left after whole sequences are gone: C0 controls but tab and newline (a carriage return or a
 * backspace can overwrite a line), DEL, C1 controls, and the bidirectional overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) that make text show in another order than it is read.
 */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** The text without escape sequences and control characters; `\n` and `\t` stay. */
export function sanitizeForTerminal(text: string): string {
  return text.replace(SEQUENCE, '').replace(CONTROL, '');
}

/**
 * JSON for a terminal, the same value: JSON.stringify escapes C0 (and ESC) in strings already; DEL, C1 and the
 * bidirectional controls get `\uXXXX` escapes too, so that `--json` output is data that a script reads exactly
 * and a terminal shows harmlessly.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(
    /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** An escape sequence that has begun at the end of a chunk and may end in the next one. */
const UNFINISHED =
  /(?:\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*|[\]PX^_][^\x07\x9c\x1b]*\x1b?|[\x20-\x2f]*)|\x9b[\x30-\x3f]*[\x20-\x2f]*|[\x90\x98\x9d\x9e\x9f][^\x07\x9c\x1b]*\x1b?)$/;
/** Longer unfinished sequences are not waited for: their start is dropped and the rest shows as text. */
const MAX_HELD = 256;

/** Sanitizes text that arrives in pieces (a streamed reply), where one escape sequence may span two pieces. */
export interface StreamSanitizer {
  /** The piece, sanitized, without an escape sequence begun at its end (held for the next piece; never shown if it does not end). */
  push(piece: string): string;
}

export function createStreamSanitizer(): StreamSanitizer {
  let held = '';
  return {
    push(piece) {
      const text = held + piece;
      const unfinished = UNFINISHED.exec(text);
      held = unfinished && unfinished[0].length <= MAX_HELD ? unfinished[0] : '';
      return sanitizeForTerminal(held ? text.slice(0, -held.length) : text);
    },
  };
}
