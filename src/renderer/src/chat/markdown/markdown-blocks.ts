import { Lexer, type Token } from 'marked';

/**
 * Markdown split into block tokens for rendering while a reply streams. Re-lexing a 20,000-character reply for
 * every token would make each token cost more than the last; instead, blocks that another block already follows
 * are **stable** (they can no longer change) and are kept, and only the text after them — the one **live** block
 * still growing — is lexed again. Once the reply is complete the whole text is lexed once more, so constructs that
 * span blocks (a loose list, a reference link defined further down) come out exactly as a full parse gives them.
 */
export interface MarkdownBlocks {
  /** Blocks that will not change any more; the same token objects from one update to the next. */
  readonly stable: readonly Token[];
  /** The block still being written (empty when the text is complete). */
  readonly live: readonly Token[];
}

const OPTIONS = { gfm: true, breaks: false } as const;

function lex(text: string): Token[] {
  return Lexer.lex(text, OPTIONS).filter((token) => token.type !== 'def');
}

/** Marked works on `\n` line ends; so do we, so that token lengths add up to the text's. */
export function normalizeMarkdown(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Lexes a growing text incrementally: feed it each new version of the text; the answer reuses stable blocks. */
export class IncrementalMarkdown {
  private text = '';
  private stable: Token[] = [];
  private stableLength = 0;
  private last: MarkdownBlocks = { stable: [], live: [] };

  update(rawText: string, complete: boolean): MarkdownBlocks {
    const text = normalizeMarkdown(rawText);
    if (text === this.text && (this.last.live.length === 0 || !complete)) return this.last;
    if (complete) {
      this.reset(text);
      this.last = { stable: completeBlocks(text), live: [] };
      return this.last;
    }
    // Anything but an append (a replaced reply) starts over.
    if (!text.startsWith(this.text) || this.text.length < this.stableLength) this.reset('');
    this.text = text;
    const tail = text.slice(this.stableLength);
    const tokens = lex(tail);
    const lengths = tokens.map((token) => token.raw.length);
    const lexedLength = lengths.reduce((sum, length) => sum + length, 0);
    if (lexedLength === tail.length && tokens.length > 1) {
      // Everything but the last block is followed by another one: it is finished.
      const finished = tokens.slice(0, -1);
      this.stable = [...this.stable, ...finished];
      this.stableLength += lexedLength - (lengths.at(-1) ?? 0);
      this.last = { stable: this.stable, live: tokens.slice(-1) };
    } else {
      this.last = { stable: this.stable, live: tokens };
    }
    return this.last;
  }

  private reset(text: string): void {
    this.text = text;
    this.stable = [];
    this.stableLength = 0;
  }
}

const CACHE_LIMIT = 400;
const cache = new Map<string, Token[]>();

/**
 * The blocks of a finished text, cached: a long chat remounts the same messages as it scrolls, and lexing
 * them again each time would be wasted work.
 */
export function completeBlocks(rawText: string): Token[] {
  const text = normalizeMarkdown(rawText);
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const tokens = lex(text);
  cache.set(text, tokens);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return tokens;
}
