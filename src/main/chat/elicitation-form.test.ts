import { describe, expect, it } from 'vitest';
import { checkElicitationContent } from './elicitation-form';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', minLength: 2 },
    email: { type: 'string', title: 'Email', format: 'email' },
    site: { type: 'string', format: 'uri' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
    hero: {
      type: 'string',
      title: 'Hero',
      oneOf: [
        { const: 'hero-1', title: 'Ada' },
        { const: 'hero-2', title: 'Grace' },
      ],
    },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 1 },
    ok: { type: 'boolean', title: 'Agree' },
  },
  required: ['name', 'email'],
};

describe('checking an elicitation answer against its schema', () => {
  it('fits: no problems', () => {
    expect(checkElicitationContent(schema, { name: 'Ada', email: 'ada@example.com', age: 36, tags: ['a'] })).toEqual(
      [],
    );
  });

  it('one problem per field, in the form order, named by the field title, in words rather than schema keys', () => {
    const problems = checkElicitationContent(schema, {
      email: 'not-an-email',
      site: 'nope',
      age: 2.5,
      hero: 'villain',
      tags: ['a', 'c'],
      ok: 'yes',
    });
    expect(problems).toEqual([
      { field: 'name', message: 'Full name is required' },
      { field: 'email', message: 'Email must be an email address, like name@example.com' },
      { field: 'site', message: 'site must be a full web address, like https://example.com' },
      { field: 'age', message: 'Age must be a whole number' },
      { field: 'hero', message: 'Hero must be one of: Ada, Grace' },
      { field: 'tags', message: 'Tags takes at most 1 choice' },
      { field: 'ok', message: 'Agree must be yes or no' },
    ]);
    for (const problem of problems) expect(problem.message).not.toMatch(/must match|must NOT|must be equal to/);
  });

  it('lengths and limits in words; a choice of a list that is not one is named with the choices', () => {
    expect(checkElicitationContent(schema, { name: 'A', email: 'a@b.co', age: 200, tags: ['z'] })).toEqual([
      { field: 'name', message: 'Full name must be at least 2 characters' },
      { field: 'age', message: 'Age must be 150 or less' },
      { field: 'tags', message: 'Tags must be one of: a, b' },
    ]);
  });

  it('a schema that cannot be compiled is one problem of the whole form', () => {
    expect(checkElicitationContent({ type: 'object', properties: { a: { type: 'no-such-type' } } }, {})).toEqual([
      { field: '', message: expect.stringMatching(/^The server's form cannot be checked: /) },
    ]);
  });
});
