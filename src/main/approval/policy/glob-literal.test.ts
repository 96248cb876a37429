import { describe, expect, it } from 'vitest';
import { compileGlob } from './argument-matcher';
import { escapeGlob, globLiteral } from './glob-literal';

describe('names made literal in rules', () => {
  it('escapes every glob character, so the glob matches the one name', () => {
    for (const name of ['write_*', 'a?b', '[x]', '{a,b}', '!neg', '@(x)', '+(y)', 'back\\slash', 'plain.name-1']) {
      const { regex } = compileGlob(escapeGlob(name));
      expect(regex.test(name), name).toBe(true);
      expect(globLiteral(escapeGlob(name))).toBe(name);
    }
    expect(compileGlob(escapeGlob('write_*')).regex.test('write_anything')).toBe(false);
    expect(globLiteral('Git*')).toBeUndefined();
    expect(globLiteral('GitHub')).toBe('GitHub');
  });
});
