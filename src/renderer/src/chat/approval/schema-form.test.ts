import { describe, expect, it } from 'vitest';
import { riskBadges } from './risk';
import { argsFromForm, argsFromJson, fieldsMissing, formFields, formObject, formValues } from './schema-form';

const WRITE_FILE = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    content: { type: 'string' },
    mode: { type: 'string', enum: ['overwrite', 'append'] },
    lines: { type: 'integer' },
    force: { type: 'boolean' },
  },
  required: ['path', 'content'],
  additionalProperties: false,
};

describe('formFields', () => {
  it('makes a form for an object of simple fields', () => {
    const fields = formFields(WRITE_FILE);
    expect(fields?.map((field) => [field.name, field.type, field.required])).toEqual([
      ['path', 'string', true],
      ['content', 'string', true],
      ['mode', 'string', false],
      ['lines', 'integer', false],
      ['force', 'boolean', false],
    ]);
    expect(fields?.find((field) => field.name === 'content')?.multiline).toBe(true);
    expect(fields?.find((field) => field.name === 'mode')?.options).toEqual(['overwrite', 'append']);
  });

  it('leaves nested and array schemas to the JSON editor', () => {
    expect(
      formFields({ type: 'object', properties: { edits: { type: 'array', items: { type: 'object' } } } }),
    ).toBeNull();
    expect(formFields({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } })).toBeNull();
  });
});

describe('argsFromForm', () => {
  const fields = formFields(WRITE_FILE) ?? [];
  it('turns text into typed arguments and leaves out empty optional fields', () => {
    const values = { ...formValues(fields, { path: 'a.txt', content: 'hi' }), lines: '3', force: 'true' };
    expect(argsFromForm(fields, values)).toEqual({
      ok: true,
      args: { path: 'a.txt', content: 'hi', lines: 3, force: true },
    });
  });
  it('names each field that is wrong', () => {
    const result = argsFromForm(fields, { path: '', content: 'x', lines: '2.5', mode: 'sideways' });
    expect(result).toEqual({
      ok: false,
      errors: { path: 'Required.', lines: 'Must be a whole number.', mode: 'Choose one of: overwrite, append.' },
    });
  });
});

describe('argsFromJson', () => {
  it('accepts an object that fits the schema', () => {
    expect(argsFromJson(WRITE_FILE, '{"path":"b.txt","content":"x"}')).toEqual({
      ok: true,
      args: { path: 'b.txt', content: 'x' },
    });
  });
  it('explains what is wrong', () => {
    expect(argsFromJson(WRITE_FILE, '{"path":')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Not valid JSON/),
    });
    expect(argsFromJson(WRITE_FILE, '[1]')).toEqual({
      ok: false,
      error: 'The arguments must be a JSON object ({ … }).',
    });
    expect(argsFromJson(WRITE_FILE, '{"path":"a"}')).toEqual({
      ok: false,
      error: 'Missing required property: content.',
    });
    expect(argsFromJson(WRITE_FILE, '{"path":1,"content":"x"}')).toEqual({
      ok: false,
      error: '“path” must be a string.',
    });
    expect(argsFromJson(WRITE_FILE, '{"path":"a","content":"x","extra":1}')).toEqual({
      ok: false,
      error: 'Unknown property: extra.',
    });
  });
});

describe('switching between the form and JSON', () => {
  const fields = formFields(WRITE_FILE) ?? [];
  it('carries what the form shows over to JSON, mistakes included, so the JSON editor names them', () => {
    const object = formObject(fields, { path: 'a.txt', content: '', lines: 'many', force: 'true', mode: '' });
    expect(object).toEqual({ path: 'a.txt', lines: 'many', force: true });
    expect(argsFromJson(WRITE_FILE, JSON.stringify(object))).toEqual({
      ok: false,
      error: 'Missing required property: content.',
    });
    expect(argsFromJson(WRITE_FILE, JSON.stringify({ ...object, content: 'x' }))).toEqual({
      ok: false,
      error: '“lines” must be an integer.',
    });
  });
  it('names the properties the form has no field for (switching would drop them)', () => {
    expect(fieldsMissing(fields, { path: 'a', extra: 1, other: true })).toEqual(['extra', 'other']);
    expect(fieldsMissing(fields, { path: 'a' })).toEqual([]);
  });
  it('a required property is one the object has itself, not one it inherits', () => {
    expect(argsFromJson({ type: 'object', required: ['constructor'] }, '{}')).toEqual({
      ok: false,
      error: 'Missing required property: constructor.',
    });
  });
});

describe('riskBadges', () => {
  it('says who claims the risk', () => {
    expect(riskBadges({ readOnlyHint: true }, false)).toEqual([
      { label: 'Read-only', tone: 'safe', description: 'Does not change anything (declared by the server).' },
    ]);
    expect(
      riskBadges({ readOnlyHint: false, destructiveHint: true, openWorldHint: false }, true).map(
        (badge) => badge.label,
      ),
    ).toEqual(['Destructive']);
    expect(riskBadges({ destructiveHint: false }, false).map((badge) => badge.label)).toEqual([
      'Changes data',
      'Open world',
    ]);
    expect(riskBadges(undefined, false).map((badge) => badge.label)).toEqual(['No risk hints']);
  });
});
