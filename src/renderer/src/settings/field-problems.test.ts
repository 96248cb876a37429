import { describe, expect, it } from 'vitest';
import { fieldProblems, normaliseField } from './field-problems';

describe('fieldProblems', () => {
  it('maps the dispatcher issues to fields, stripping a prefix and joining two reasons for one field', () => {
    const error = {
      code: 'invalid_input',
      message: 'Invalid input for mcp.add: server.command: must not be empty',
      details: {
        issues: [
          { path: 'server.command', message: 'must not be empty' },
          { path: 'name', message: 'must not be empty' },
          { path: 'name', message: 'must be a single line of text' },
        ],
      },
    };
    expect(fieldProblems(error, 'server.')).toEqual({
      command: 'must not be empty',
      name: 'must not be empty; must be a single line of text',
    });
  });

  it("maps the policy's rule problems to their fields", () => {
    const error = {
      code: 'invalid_input',
      message: 'The approval policy was not changed: …',
      details: {
        problems: [{ ruleId: 'r1', field: 'args[0].value', problem: 'the regex could backtrack catastrophically' }],
      },
    };
    const problems = fieldProblems(error);
    expect(problems).toEqual({ 'args[0].value': 'the regex could backtrack catastrophically' });
    expect(normaliseField('args[0].value')).toBe('args.0.value');
  });

  it('puts an error that names no field under the empty key, and reads plain errors', () => {
    expect(fieldProblems({ code: 'not_found', message: 'No provider has the id "x".' })).toEqual({
      '': 'No provider has the id "x".',
    });
    expect(fieldProblems(new Error('socket closed'))).toEqual({ '': 'socket closed' });
  });
});
