import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignProviderNames, PROVIDER_TOOL_NAME, type ToolKey } from './tool-names';

const key = (serverName: string, toolName: string): ToolKey => ({ serverName, toolName });
const names = (tools: ToolKey[]): Record<string, string> =>
  Object.fromEntries(
    [...assignProviderNames(tools)].map(([name, tool]) => [`${tool.serverName}/${tool.toolName}`, name]),
  );

describe('assignProviderNames', () => {
  it('uses <server>__<tool> when that is already provider-safe', () => {
    expect(names([key('Files', 'read_file'), key('github', 'create-issue')])).toEqual({
      'Files/read_file': 'Files__read_file',
      'github/create-issue': 'github__create-issue',
    });
  });

  it('adds a hash of the exact names when characters must be replaced, the name is too long, or names collide', () => {
    const result = names([
      key('my server', 'read.file'),
      key('a', 'b__c'),
      key('a__b', 'c'),
      key('s', 'x'.repeat(100)),
      key('S', 'ok'),
      key('s', 'ok'),
    ]);
    expect(result['my server/read.file']).toMatch(/^my_server__read_file_[0-9a-f]{8}$/);
    expect(result['a/b__c']).toMatch(/^a__b__c_[0-9a-f]{8}$/);
    expect(result['a__b/c']).toMatch(/^a__b__c_[0-9a-f]{8}$/);
    expect(result['a/b__c']).not.toBe(result['a__b/c']);
    expect(result[`s/${'x'.repeat(100)}`]).toHaveLength(64);
    // Providers may compare names without case: S__ok and s__ok would be one tool to them.
    expect(result['S/ok']?.toLowerCase()).not.toBe(result['s/ok']?.toLowerCase());
  });

  const toolKey = fc.record({
    serverName: fc.string({ minLength: 1, maxLength: 70 }),
    toolName: fc.string({ minLength: 1, maxLength: 150 }),
  });

  it('gives every tool a valid, unique name that maps back to exactly that tool', () => {
    fc.assert(
      fc.property(fc.array(toolKey, { maxLength: 40 }), (tools) => {
        const assigned = assignProviderNames(tools);
        const distinct = new Set(tools.map((tool) => `${tool.serverName}\u0000${tool.toolName}`));
        expect(assigned.size).toBe(distinct.size);
        const lower = new Set([...assigned.keys()].map((name) => name.toLowerCase()));
        expect(lower.size).toBe(assigned.size);
        for (const [name, tool] of assigned) {
          expect(name).toMatch(PROVIDER_TOOL_NAME);
          expect(distinct.has(`${tool.serverName}\u0000${tool.toolName}`)).toBe(true);
        }
      }),
    );
  });

  it('depends only on the set of tools, never on their order', () => {
    fc.assert(
      fc.property(fc.array(toolKey, { maxLength: 30 }), fc.nat(), (tools, seed) => {
        const shuffled = [...tools].sort(
          (a, b) => ((a.toolName.length * 31 + seed) % 7) - ((b.toolName.length * 31 + seed) % 7),
        );
        expect(names(shuffled)).toEqual(names(tools));
      }),
    );
  });
});
