import { describe, expect, it } from 'vitest';
import { DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from '../../../../shared/approval';
import { filterServerTools, inheritedWords, resetToDefaults } from './tool-settings';

const policy: ApprovalPolicy = {
  ...DEFAULT_APPROVAL_POLICY,
  servers: { Files: { autoApprove: true }, Gone: { autoApprove: true } },
  tools: { Files: { write_file: 'always-ask' }, Memory: { old_tool: 'auto-approve' } },
};
const tools = [
  { serverName: 'Files', name: 'read_file', annotations: { readOnlyHint: true } },
  { serverName: 'Files', name: 'write_file' },
  { serverName: 'Memory', name: 'read_graph' },
];

describe('filterServerTools', () => {
  it('lists configured servers first, then servers only the policy names, with tools the server no longer offers', () => {
    const rows = filterServerTools({ servers: ['Files', 'Memory'], tools, policy, query: '', onlyChanged: false });
    expect(rows.map((row) => row.server)).toEqual(['Files', 'Memory', 'Gone']);
    expect(rows[0]).toMatchObject({ autoApprove: true, totalTools: 2, customTools: 1 });
    expect(rows[1]?.tools.map((tool) => [tool.name, tool.setting])).toEqual([
      ['read_graph', 'inherit'],
      ['old_tool', 'auto-approve'],
    ]);
  });

  it('matches a server by name (all its tools) or tools by name (only those), case-insensitively', () => {
    expect(
      filterServerTools({ servers: ['Files', 'Memory'], tools, policy, query: 'files', onlyChanged: false }).map(
        (row) => row.tools.length,
      ),
    ).toEqual([2]);
    const byTool = filterServerTools({
      servers: ['Files', 'Memory'],
      tools,
      policy,
      query: 'READ',
      onlyChanged: false,
    });
    expect(byTool.map((row) => [row.server, row.tools.map((tool) => tool.name)])).toEqual([
      ['Files', ['read_file']],
      ['Memory', ['read_graph']],
    ]);
  });

  it('shows only changed settings when asked', () => {
    const rows = filterServerTools({ servers: ['Files', 'Memory'], tools, policy, query: '', onlyChanged: true });
    expect(rows.map((row) => [row.server, row.tools.map((tool) => tool.name)])).toEqual([
      ['Files', ['write_file']],
      ['Memory', ['old_tool']],
      ['Gone', []],
    ]);
  });
});

describe('resetToDefaults', () => {
  it('forgets every server and sets every tool back to inherit', () => {
    expect(resetToDefaults(policy)).toEqual({
      servers: { Files: null, Gone: null },
      tools: { Files: { write_file: 'inherit' }, Memory: { old_tool: 'inherit' } },
    });
  });
});

describe('inheritedWords: what "Use server setting" comes to', () => {
  const policy = { mode: 'ask' as const, servers: {} };
  it('says the effective value: the server auto-approved, approvals off, or asking', () => {
    expect(inheritedWords(policy, 'Files')).toBe('asks');
    expect(inheritedWords({ ...policy, servers: { Files: { autoApprove: true } } }, 'Files')).toBe(
      'runs without asking (the server is auto-approved)',
    );
    expect(inheritedWords({ ...policy, mode: 'never-ask' }, 'Files')).toBe('runs without asking (approvals are off)');
    expect(inheritedWords({ ...policy, mode: 'auto-approve-read-only-trusted' }, 'Files', { readOnlyHint: true })).toBe(
      "asks, unless you trust the server's annotations (read-only)",
    );
    expect(
      inheritedWords({ ...policy, mode: 'auto-approve-read-only-trusted' }, 'Files', { readOnlyHint: false }),
    ).toBe('asks');
  });
});
