import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolSpecSchema } from './conversation';
import { parseToolArguments, toolArgumentsFromValue } from './tool-arguments';
import { PROVIDER_TOOL_NAME_MAX_LENGTH, providerToolName } from './tool-names';

describe('providerToolName', () => {
  it('joins plain names with a double underscore', () => {
    expect(providerToolName('files', 'read_text_file')).toBe('files__read_text_file');
    expect(providerToolName('Files-2', 'list-directory')).toBe('Files-2__list-directory');
  });

  it('sanitizes, shortens and hashes names the providers would refuse', () => {
    const name = providerToolName('my server', 'do.it/now');
    expect(name).toMatch(/^my_server__do_it_now_[0-9a-f]{8}$/);
    expect(providerToolName('1st', 'tool')).toMatch(/^_1st__tool_[0-9a-f]{8}$/);
    expect(providerToolName('s'.repeat(50), 't'.repeat(50))).toHaveLength(PROVIDER_TOOL_NAME_MAX_LENGTH);
  });

  it('keeps pairs apart that would otherwise join to the same name', () => {
    expect(providerToolName('a__b', 'c')).not.toBe(providerToolName('a', 'b__c'));
    expect(providerToolName('a b', 'c')).not.toBe(providerToolName('a_b', 'c'));
  });

  it('always gives a name every provider accepts, the same one each time, distinct for distinct pairs', () => {
    const seen = new Map<string, string>();
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.string({ minLength: 1, maxLength: 80 }),
        (server, tool) => {
          const name = providerToolName(server, tool);
          expect(ToolSpecSchema.shape.name.safeParse(name).success).toBe(true);
          expect(providerToolName(server, tool)).toBe(name);
          const pair = JSON.stringify([server, tool]);
          const earlier = seen.get(name);
          if (earlier !== undefined) expect(earlier).toBe(pair);
          seen.set(name, pair);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('tool arguments', () => {
  it('parses a JSON object, and treats no text as no arguments', () => {
    expect(parseToolArguments('{"a": [1, {"b": null}]}')).toEqual({ kind: 'parsed', value: { a: [1, { b: null }] } });
    expect(parseToolArguments('  ')).toEqual({ kind: 'parsed', value: {} });
  });

  it('keeps text that is not a JSON object as malformed, raw', () => {
    expect(parseToolArguments('{"a": ')).toMatchObject({
      kind: 'malformed',
      raw: '{"a": ',
      problem: expect.stringContaining('not valid JSON'),
    });
    expect(parseToolArguments('[1, 2]')).toEqual({
      kind: 'malformed',
      raw: '[1, 2]',
      problem: 'a JSON array, not an object',
    });
    expect(parseToolArguments('"path"')).toEqual({
      kind: 'malformed',
      raw: '"path"',
      problem: 'a JSON string, not an object',
    });
  });

  it('checks arguments a provider sent already parsed', () => {
    expect(toolArgumentsFromValue({ x: 1 })).toEqual({ kind: 'parsed', value: { x: 1 } });
    expect(toolArgumentsFromValue(undefined)).toEqual({ kind: 'parsed', value: {} });
    expect(toolArgumentsFromValue('x')).toEqual({
      kind: 'malformed',
      raw: '"x"',
      problem: 'a JSON string, not an object',
    });
  });
});
