import { describe, expect, it } from 'vitest';
import { toAuditQuery } from '../audit/audit-filters';
import { rowsFilter } from './insights-data';

const period = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-08T00:00:00.000Z' };
const none = { serverName: '', toolName: '', chatId: '' };

describe('a chart opening its rows in the audit viewer', () => {
  it("keeps the kind of call: an app's calls apart from the model's, sampling and elicitation as their own rows", () => {
    const query = (kind: '' | 'tool' | 'app-tool-call' | 'sampling' | 'elicitation'): unknown => {
      const built = toAuditQuery(rowsFilter(period, { ...none, kind }, { series: 'allowedByYou' }), null, 50);
      return 'query' in built ? { kind: built.query.kind, requestedBy: built.query.requestedBy } : built;
    };
    expect(query('app-tool-call')).toEqual({ kind: 'decision', requestedBy: 'app' });
    expect(query('tool')).toEqual({ kind: 'decision', requestedBy: 'model' });
    expect(query('sampling')).toEqual({ kind: 'sampling', requestedBy: undefined });
    expect(query('elicitation')).toEqual({ kind: 'elicitation', requestedBy: undefined });
    expect(query('')).toEqual({ kind: undefined, requestedBy: undefined });
  });

  it('carries the page filters and what was picked', () => {
    const filters = rowsFilter(
      period,
      { serverName: 'Files', toolName: '', chatId: 'c1', kind: 'app-tool-call' },
      { toolName: 'read', series: 'deniedByYou' },
    );
    expect(filters).toMatchObject({
      serverName: 'Files',
      toolName: 'read',
      chatId: 'c1',
      kind: 'decision',
      requestedBy: 'app',
      actor: 'user',
      decisions: ['deny'],
    });
  });

  it("ends an earlier server's rows at its last millisecond, not at the minute", () => {
    const end = '2026-03-05T10:20:30.457Z';
    const filters = rowsFilter({ ...period, to: end, exactEnd: true }, { ...none, kind: '' }, {});
    const built = toAuditQuery(filters, null, 50);
    expect('query' in built && built.query.to).toBe(end);
    const rounded = toAuditQuery(rowsFilter({ ...period, to: end }, { ...none, kind: '' }, {}), null, 50);
    expect('query' in rounded && rounded.query.to).toBe(new Date(Date.parse('2026-03-05T10:21:00.000Z')).toISOString());
  });
});
