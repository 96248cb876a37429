import { describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../../shared/mcp';
import { annotationBadges, parseArgumentLines, parseKeyValueLines, statusOf, summaryOf } from './server-text';

const status = (state: McpServerView['status']['state']): McpServerView['status'] => ({
  state,
  since: 0,
  recentCrashes: 0,
  toolCount: 0,
});

describe('server text', () => {
  it('names the state, and a disabled server is Disabled whatever its process does', () => {
    expect(statusOf({ enabled: true, status: status('ready') })).toEqual({ label: 'Running', tone: 'good' });
    expect(statusOf({ enabled: true, status: status('error') }).tone).toBe('bad');
    expect(statusOf({ enabled: false, status: status('ready') })).toEqual({ label: 'Disabled', tone: 'off' });
  });

  it('summarises what runs, quoting arguments with spaces', () => {
    expect(
      summaryOf({ kind: 'stdio', package: '@modelcontextprotocol/server-filesystem', args: ['/home/me/My Files'] }),
    ).toBe('Bundled · @modelcontextprotocol/server-filesystem "/home/me/My Files"');
    expect(summaryOf({ kind: 'stdio', command: 'node', args: ['server.js', '--port=3'] })).toBe(
      'node server.js --port=3',
    );
    expect(summaryOf({ kind: 'http', url: 'https://example.com/mcp' })).toBe('https://example.com/mcp');
  });

  it('turns annotations into badges; read-only hides the write hints', () => {
    expect(annotationBadges(undefined)).toEqual([]);
    expect(annotationBadges({ readOnlyHint: true, destructiveHint: true }).map((badge) => badge.label)).toEqual([
      'Read-only',
    ]);
    expect(annotationBadges({ destructiveHint: true, openWorldHint: true }).map((badge) => badge.label)).toEqual([
      'Destructive',
      'Open world',
    ]);
    expect(
      annotationBadges({ readOnlyHint: false, destructiveHint: false, idempotentHint: true }).map(
        (badge) => badge.label,
      ),
    ).toEqual(['Additive', 'Idempotent']);
  });

  it('parses NAME=value lines and argument lines, naming a bad line', () => {
    expect(parseKeyValueLines('A=1\n\n B = two=2 \n')).toEqual({ values: { A: '1', B: ' two=2' } });
    expect(parseKeyValueLines('A=1\nnope').problem).toBe('Line 2 must read NAME=value.');
    expect(parseArgumentLines(' -y \n\n/tmp/a b\n')).toEqual(['-y', '/tmp/a b']);
  });
});
