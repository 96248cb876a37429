import { describe, expect, it } from 'vitest';
import { completeBlocks, IncrementalMarkdown } from './markdown-blocks';

const REPLY = [
  '# Plan',
  '',
  'First a paragraph with **bold** and `code`.',
  '',
  '| a | b |',
  '| - | - |',
  '| 1 | 2 |',
  '',
  '```ts',
  'const x = 1;',
  '```',
  '',
  '- one',
  '- two',
  '',
  'The end.',
].join('\n');

describe('IncrementalMarkdown', () => {
  it('keeps finished blocks as the same objects while the text grows', () => {
    const blocks = new IncrementalMarkdown();
    const first = blocks.update('# Plan\n\nFirst a paragraph', false);
    expect(first.live).toHaveLength(1);
    const heading = first.stable[0];
    expect(heading?.type).toBe('heading');
    const second = blocks.update('# Plan\n\nFirst a paragraph with more words', false);
    expect(second.stable[0]).toBe(heading);
    expect(second.live[0]?.type).toBe('paragraph');
  });

  it('ends with the same blocks a full parse gives, token by token', () => {
    const blocks = new IncrementalMarkdown();
    for (let end = 1; end < REPLY.length; end += 3) {
      const { stable, live } = blocks.update(REPLY.slice(0, end), false);
      // What is shown is always the whole text so far, once.
      expect([...stable, ...live].map((token) => token.raw).join('')).toBe(REPLY.slice(0, end));
    }
    const done = blocks.update(REPLY, true);
    expect(done.live).toHaveLength(0);
    expect(done.stable.map((token) => token.type)).toEqual(completeBlocks(REPLY).map((token) => token.type));
    expect(done.stable.map((token) => token.type)).toContain('table');
    expect(done.stable.map((token) => token.type)).toContain('code');
  });

  it('an unclosed code fence stays one live block until it closes', () => {
    const blocks = new IncrementalMarkdown();
    const open = blocks.update('Intro\n\n```js\nlet a = 1;\n\nlet b = 2;', false);
    expect(open.live).toHaveLength(1);
    expect(open.live[0]?.type).toBe('code');
  });

  it('starts over when the text is replaced rather than extended', () => {
    const blocks = new IncrementalMarkdown();
    blocks.update('Hello\n\nworld', false);
    const replaced = blocks.update('Other', false);
    expect(replaced.stable).toHaveLength(0);
    expect(replaced.live[0]?.raw).toBe('Other');
  });

  it('treats CRLF like LF', () => {
    expect(completeBlocks('a\r\n\r\nb').map((token) => token.type)).toEqual(
      completeBlocks('a\n\nb').map((token) => token.type),
    );
  });
});
