import { describe, expect, it } from 'vitest';
import { toGeminiParameters } from './gemini-schema';

describe('toGeminiParameters', () => {
  it('keeps what Gemini accepts and drops the rest', () => {
    expect(
      toGeminiParameters({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        properties: {
          path: { type: 'string', description: 'Where', minLength: 1, format: 'uri' },
          when: { type: 'string', format: 'date-time' },
          count: { type: 'integer', minimum: 0, maximum: 10, exclusiveMaximum: 11, default: 3 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 5, uniqueItems: true },
        },
        required: ['path'],
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: {
        path: { type: 'STRING', description: 'Where', minLength: '1' },
        when: { type: 'STRING', format: 'date-time' },
        count: { type: 'INTEGER', minimum: 0, maximum: 10, default: 3 },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '5' },
      },
      required: ['path'],
    });
  });

  it('leaves parameters out for a tool without properties', () => {
    expect(toGeminiParameters({ type: 'object', properties: {} })).toBeUndefined();
    expect(toGeminiParameters({ type: 'object' })).toBeUndefined();
  });

  it('turns nullable type lists and null branches into nullable', () => {
    const schema = toGeminiParameters({
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'null' }, { type: 'object', properties: { x: { type: 'number' } } }] },
        c: { type: ['string', 'number'] },
      },
    });
    expect(schema?.properties).toEqual({
      a: { type: 'STRING', nullable: true },
      b: { type: 'OBJECT', properties: { x: { type: 'NUMBER' } }, nullable: true },
      c: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
    });
  });

  it('inlines $ref from $defs and definitions, and stops recursive ones', () => {
    const schema = toGeminiParameters({
      type: 'object',
      $defs: {
        Edit: {
          type: 'object',
          properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
          required: ['oldText', 'newText'],
        },
      },
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
      properties: {
        edits: { type: 'array', items: { $ref: '#/$defs/Edit' } },
        tree: { $ref: '#/definitions/Node', description: 'The root' },
      },
    });
    expect(schema?.properties?.['edits']).toEqual({
      type: 'ARRAY',
      items: {
        type: 'OBJECT',
        properties: { oldText: { type: 'STRING' }, newText: { type: 'STRING' } },
        required: ['oldText', 'newText'],
      },
    });
    const tree = schema?.properties?.['tree'];
    expect(tree?.description).toBe('The root');
    // Somewhere down the recursion ends in a plain object instead of going on forever.
    expect(JSON.stringify(tree)).toContain('recursive');
    expect(JSON.stringify(schema)).not.toContain('$ref');
  });

  it('converts const, oneOf and allOf, and keeps only string enums', () => {
    const schema = toGeminiParameters({
      type: 'object',
      properties: {
        mode: { const: 'fast' },
        level: { type: 'integer', enum: [1, 2, 3], description: 'How hard.' },
        color: { type: 'string', enum: ['red', 'green'] },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'boolean' } } },
          ],
        },
      },
    });
    expect(schema?.properties).toEqual({
      mode: { type: 'STRING', enum: ['fast'] },
      level: { type: 'INTEGER', description: 'How hard. One of: 1, 2, 3.' },
      color: { type: 'STRING', enum: ['red', 'green'] },
      either: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] },
      both: { type: 'OBJECT', properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } }, required: ['a'] },
    });
  });

  it('keeps properties, required and items only where they belong', () => {
    const schema = toGeminiParameters({
      type: 'object',
      properties: {
        name: { type: 'string', properties: { x: { type: 'string' } }, required: ['x'], items: { type: 'string' } },
        list: { type: 'array' },
        free: { type: 'object', additionalProperties: true },
      },
      required: ['name', 'missing'],
    });
    expect(schema).toEqual({
      type: 'OBJECT',
      properties: {
        name: { type: 'STRING' },
        list: { type: 'ARRAY', items: { type: 'STRING' } },
        free: { type: 'OBJECT' },
      },
      required: ['name'],
    });
  });
});
