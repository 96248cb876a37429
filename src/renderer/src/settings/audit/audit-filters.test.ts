import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../../shared/audit';
import { EMPTY_FILTERS, decisionTone, localToIso, rowSummary, toAuditQuery } from './audit-filters';
import { base64ToBytes } from './export-download';

describe('audit filters', () => {
  it('leaves out empty filters and passes the cursor and the page size', () => {
    expect(toAuditQuery(EMPTY_FILTERS, null, 50)).toEqual({ query: { limit: 50 } });
    expect(
      toAuditQuery(
        { ...EMPTY_FILTERS, serverName: ' Files ', decision: 'deny', actor: 'user', kind: 'decision' },
        '42',
        25,
      ),
    ).toEqual({
      query: { limit: 25, serverName: 'Files', decision: 'deny', actor: 'user', kind: 'decision', cursor: '42' },
    });
  });

  it('turns local times into instants and refuses a "to" before "from"', () => {
    const iso = localToIso('2026-03-01T10:30');
    expect(iso).toBe(new Date('2026-03-01T10:30').toISOString());
    expect(localToIso('')).toBeNull();
    expect(localToIso('not a time')).toBeNull();
    expect(toAuditQuery({ ...EMPTY_FILTERS, from: '2026-03-02T00:00', to: '2026-03-01T00:00' }, null, 50)).toEqual({
      problem: '“From” must not be after “To”.',
    });
  });

  it('colours decisions and summarises rows', () => {
    expect(decisionTone('auto_deny')).toBe('bad');
    expect(decisionTone('timeout')).toBe('off');
    expect(decisionTone('session_grant')).toBe('good');
    const base = {
      kind: 'result',
      outcome: 'error',
      durationMs: 12.4,
      error: 'ENOENT',
      decidedBy: null,
      reason: null,
    } as unknown as AuditEntry;
    expect(rowSummary(base)).toBe('Failed in 12 ms: ENOENT');
    expect(rowSummary({ ...base, kind: 'decision', decidedBy: 'You', reason: 'not now' })).toBe('You — “not now”');
  });

  it('decodes base64 chunks to bytes, multi-byte characters included', () => {
    const text = 'ü → ✓\n';
    const bytes = base64ToBytes(btoa(String.fromCharCode(...new TextEncoder().encode(text))));
    expect(new TextDecoder().decode(bytes)).toBe(text);
  });
});
