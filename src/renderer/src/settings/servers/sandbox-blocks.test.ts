import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../../shared/audit';
import { sameBlocksTogether } from './sandbox-blocks';

let sequence = 100;
const row = (toolName: string, args: unknown): AuditEntry =>
  ({ sequence: (sequence -= 1), toolName, args, time: '2026-11-27T10:00:00Z' }) as AuditEntry;

describe('Recent blocks', () => {
  it('puts the rows of one block (kind, target, call) on one line with their counts added, at its newest row', () => {
    const rows = [
      row('sandbox/read', { target: '/home/me/.ssh/id_rsa', count: 40 }),
      row('sandbox/connect', { target: 'evil.test:443' }),
      row('sandbox/read', { target: '/home/me/.ssh/id_rsa' }),
      row('sandbox/read', { target: '/home/me/.ssh/id_rsa', call: 'read_file', count: 3 }),
      row('sandbox/write', { target: '/home/me/.ssh/id_rsa' }),
      row('sandbox/read', { target: '/home/me/.ssh/id_rsa', count: 'many' }),
      row('sandbox/many', { count: 998 }),
      row('sandbox/many', { count: 5 }),
    ];
    expect(sameBlocksTogether(rows).map(({ entry, count }) => [entry.sequence, count])).toEqual([
      [rows[0]?.sequence, 42],
      [rows[1]?.sequence, 1],
      [rows[3]?.sequence, 3],
      [rows[4]?.sequence, 1],
      [rows[6]?.sequence, 998],
      [rows[7]?.sequence, 5],
    ]);
  });
});
