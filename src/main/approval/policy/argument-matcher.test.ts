import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileMatcher, matcherHolds, regexPrefix } from './argument-matcher';

describe('the literal prefix of a regex', () => {
  it.each([
    ['^cmd\\b', 'cmd'],
    ['^rm -rf /', 'rm -rf /'],
    ['^ab?c', 'a'],
    ['^ab{2}', 'a'],
    ['^a*', ''],
    ['^abc(d)?', 'abc'],
    ['^git|^npm', ''],
    ['cmd', ''],
    ['^[a-z]+', ''],
    ['^.x', ''],
  ])('of %s is %j', (source, prefix) => {
    expect(regexPrefix(source)).toBe(prefix);
  });

  it('never changes what a regex matches', () => {
    const sources = ['^cmd\\b', '^rm -rf', '^ab?c', '^ab{2}c', '^abc(d)?$', '^a+b', '^/etc/', '^x=1,y', '^_-:@%'];
    const text = fc
      .array(
        fc.constantFrom(
          'c',
          'm',
          'd',
          'r',
          ' ',
          '-',
          'f',
          'a',
          'b',
          'x',
          '=',
          '1',
          ',',
          'y',
          '/',
          'e',
          't',
          '_',
          ':',
          '@',
          '%',
        ),
        { maxLength: 8 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.constantFrom(...sources), text, fc.boolean(), (source, value, all) => {
        const matcher = compileMatcher({ pointer: '/v', match: 'regex', value: source }, all);
        expect(matcherHolds(matcher, { v: value })).toBe(new RegExp(source, 'u').test(value));
      }),
      { numRuns: 3_000 },
    );
  });
});
