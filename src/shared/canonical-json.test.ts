import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes undefined array items as null, as JSON.stringify does', () => {
    expect(canonicalJson([1, undefined, 'x'])).toBe('[1,null,"x"]');
  });

  it('is the same text for the same value whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const shuffled = JSON.parse(
          JSON.stringify(value, (_key, member: unknown) =>
            member && typeof member === 'object' && !Array.isArray(member)
              ? Object.fromEntries(Object.entries(member as Record<string, unknown>).reverse())
              : member,
          ),
        ) as unknown;
        expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('refuses values without a JSON form instead of hashing something else', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/no JSON form/);
    expect(() => canonicalJson({ big: 1n })).toThrow(/bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"a":1},{"a":1}]');
  });
});
