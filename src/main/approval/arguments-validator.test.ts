import { describe, expect, it } from 'vitest';
import { createArgumentsValidator, describeArgumentProblems } from './arguments-validator';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

describe('the arguments validator', () => {
  it('names the JSON path and the problem of each failure', () => {
    const validator = createArgumentsValidator();
    const schema = {
      type: 'object',
      properties: {
        mode: { enum: ['fast', 'slow'] },
        'a/b': { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
    };
    const result = validator.check(HASH_A, schema, { mode: 'medium', 'a/b': {} });
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: '/mode', problem: 'must be equal to one of the allowed values: "fast", "slow"' },
        { path: '/a~1b/n', problem: 'is required' },
      ],
    });
    if (result.ok || !('problems' in result)) throw new Error('expected problems');
    expect(describeArgumentProblems(result.problems)).toBe(
      '/mode must be equal to one of the allowed values: "fast", "slow"; /a~1b/n is required',
    );
    expect(validator.check(HASH_A, schema, { mode: 'fast' })).toEqual({ ok: true });
  });

  it('compiles a schema once per definition hash', () => {
    const validator = createArgumentsValidator();
    expect(validator.check(HASH_A, { type: 'object', required: ['x'] }, {}).ok).toBe(false);
    // Same hash, same definition: the compiled schema is reused, whatever object is passed.
    expect(validator.check(HASH_A, { type: 'object' }, {}).ok).toBe(false);
    expect(validator.check(HASH_B, { type: 'object' }, {}).ok).toBe(true);
  });

  it('reads the JSON Schema dialect a server declares', () => {
    const validator = createArgumentsValidator();
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { list: { type: 'array', prefixItems: [{ type: 'string' }] } },
    };
    expect(validator.check(HASH_A, draft2020, { list: [1] })).toEqual({
      ok: false,
      problems: [{ path: '/list/0', problem: 'must be string' }],
    });
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'integer' } },
    };
    expect(validator.check(HASH_B, draft04, { n: 1.5 })).toEqual({
      ok: false,
      problems: [{ path: '/n', problem: 'must be integer' }],
    });
  });

  it('keeps schemas with the same $id apart', () => {
    const validator = createArgumentsValidator();
    expect(
      validator.check(HASH_A, { $id: 'https://tools.example/same.json', type: 'object', required: ['a'] }, { b: 1 }).ok,
    ).toBe(false);
    expect(
      validator.check(HASH_B, { $id: 'https://tools.example/same.json', type: 'object', required: ['b'] }, { b: 1 }).ok,
    ).toBe(true);
  });

  it('reports a schema it cannot use instead of throwing, and never fetches remote references', () => {
    const validator = createArgumentsValidator();
    const remote = validator.check(
      HASH_A,
      { type: 'object', properties: { x: { $ref: 'https://example.invalid/schema.json' } } },
      { x: 1 },
    );
    expect(remote).toEqual({
      ok: false,
      schemaError: expect.stringContaining("can't resolve reference https://example.invalid/schema.json"),
    });
    const broken = validator.check(HASH_B, { type: 'object', minProperties: -1 }, {});
    expect(broken).toEqual({ ok: false, schemaError: expect.stringContaining('schema is invalid') });
  });
});
