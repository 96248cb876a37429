import { describe, expect, it } from 'vitest';
import type { ToolCallRequest } from '../shared/approval';
import { checkArguments, foldedArguments } from './approval-prompt';

const request: ToolCallRequest = {
  toolCallId: 'c1',
  serverName: 'Files',
  toolName: 'write_file',
  args: { path: 'a.txt', content: 'A' },
  definitionHash: 'h1',
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
  decision: { outcome: 'ask', source: { kind: 'default' }, reason: 'Asked: nothing allows it', definitionChanged: false },
};

describe('the approval prompt', () => {
  it('pretty-prints the arguments and folds long values, saying how much is left out', () => {
    const text = foldedArguments({ path: 'notes.txt', content: 'x'.repeat(500), lines: Array.from({ length: 25 }, (_, index) => index) });
    expect(text).toContain('"path": "notes.txt"');
    expect(text).toContain(`"content": "${'x'.repeat(160)}… (340 more characters)"`);
    expect(text).toContain('"… 5 more items"');
    expect(text.split('\n')[0]).toBe('{');
  });

  it('accepts edited arguments only when they are a JSON object that fits the schema, and says why not', () => {
    expect(checkArguments('{"path": "b.txt", "content": "B"}', request)).toEqual({ path: 'b.txt', content: 'B' });
    expect(checkArguments('{path:', request)).toMatch(/^That is not valid JSON: .*The arguments were not changed\.$/);
    expect(checkArguments('[1, 2]', request)).toBe('The arguments must be a JSON object ({ … }). The arguments were not changed.');
    expect(checkArguments('{"path": 5, "extra": true}', request)).toMatch(/^The arguments do not fit the input schema of Files\.write_file: .*\/content.*required.*\/path.*string/);
    expect(checkArguments('{"path": "x"}', { ...request, inputSchema: { type: 'object', properties: { path: { type: 'nonsense' } } } })).toMatch(/input schema is invalid/);
  });
});
