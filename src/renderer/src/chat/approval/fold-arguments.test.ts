import { describe, expect, it } from 'vitest';
import { FOLD_CHARS, foldArguments, foldedWords } from './fold-arguments';

describe('foldArguments', () => {
  it('leaves short arguments as they are', () => {
    const args = { path: 'notes/a.txt', content: 'short', mode: 420, tags: ['x'] };
    expect(foldArguments(args)).toEqual({ text: JSON.stringify(args, null, 2), folded: [] });
  });

  it('folds a long text to its start and names its path and full length', () => {
    const long = 'a'.repeat(4210);
    const { text, folded } = foldArguments({ path: 'big.txt', content: long });
    expect(folded).toEqual([{ path: 'content', length: 4210 }]);
    expect(text).toContain('"path": "big.txt"');
    expect(text).toContain('… [4,210 characters]');
    expect(text.length).toBeLessThan(400);
    expect(foldedWords(folded)).toBe('content (4,210 characters)');
  });

  it('folds a text of many short lines, and long texts nested in arrays', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const { text, folded } = foldArguments({ edits: [{ oldText: 'x', newText: lines }] });
    expect(folded).toEqual([{ path: 'edits[0].newText', length: lines.length }]);
    expect(text).not.toContain('line 5');
  });

  it('does not fold a value right at the limit', () => {
    expect(foldArguments({ content: 'b'.repeat(FOLD_CHARS) }).folded).toEqual([]);
  });
});
