// An attacker with the database file: drops the triggers, then edits, deletes, inserts or reorders rows with raw SQL.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditProblemKind } from '../../shared/audit';
import { fillLog, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import {
  AUDIT_COLUMNS_SQL,
  AUDIT_FIELDS,
  HASH_INDEX,
  hashOfStoredRow,
  PREVIOUS_HASH_INDEX,
  SEQUENCE_INDEX,
  type AuditField,
} from './audit-row';
import { verifyAuditDatabase } from './audit-verify';

const ROWS = 24;
const TRIGGERS = [
  'audit_log_no_update',
  'audit_log_no_delete',
  'audit_log_extends_chain',
  'audit_log_moves_head',
  'audit_head_insert_is_last_row',
  'audit_head_update_is_last_row',
  'audit_head_no_delete',
];

let template: TempAuditLog;
let templateFile: string;
let copies = 0;

beforeAll(() => {
  template = openTempAuditLog('aiwb-tamper-');
  fillLog(template, ROWS);
  template.db.pragma('wal_checkpoint(TRUNCATE)');
  template.db.close();
  templateFile = template.file;
});

afterAll(() => template.close());

/** A fresh copy of the intact 24-row log, opened raw with every audit trigger dropped. */
function tamperable(): { file: string; db: BetterSqlite3.Database } {
  const file = path.join(template.dir, `copy-${++copies}.db`);
  fs.copyFileSync(templateFile, file);
  const db = new BetterSqlite3(file);
  for (const trigger of TRIGGERS) db.exec(`DROP TRIGGER ${trigger}`);
  return { file, db };
}

function rowAt(db: BetterSqlite3.Database, sequence: number): unknown[] {
  const row = db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log WHERE sequence = ?`).raw().get(sequence) as
    unknown[] | undefined;
  if (!row) throw new Error(`no row ${sequence}`);
  return row;
}

function column(field: AuditField): string {
  return AUDIT_COLUMNS_SQL.split(', ')[AUDIT_FIELDS.indexOf(field)] as string;
}

function insertRow(db: BetterSqlite3.Database, values: unknown[]): void {
  db.prepare(`INSERT INTO audit_log (${AUDIT_COLUMNS_SQL}) VALUES (${values.map(() => '?').join(', ')})`).run(values);
}

/** Moves rows `from` and later up by one, leaving a hole at `from` (two steps: no clash on the primary key). */
function openGap(db: BetterSqlite3.Database, from: number): void {
  db.prepare('UPDATE audit_log SET sequence = -(sequence + 1) WHERE sequence >= ?').run(from);
  db.prepare('UPDATE audit_log SET sequence = -sequence WHERE sequence < 0').run();
}

function closeGap(db: BetterSqlite3.Database, after: number): void {
  db.prepare('UPDATE audit_log SET sequence = -(sequence - 1) WHERE sequence > ?').run(after);
  db.prepare('UPDATE audit_log SET sequence = -sequence WHERE sequence < 0').run();
}

function swap(db: BetterSqlite3.Database, first: number, second: number): void {
  db.prepare('UPDATE audit_log SET sequence = -1 WHERE sequence = ?').run(first);
  db.prepare('UPDATE audit_log SET sequence = ? WHERE sequence = ?').run(first, second);
  db.prepare('UPDATE audit_log SET sequence = ? WHERE sequence = -1').run(second);
}

/** A new row for position `at`, chained properly or not, hashed properly or not. */
function forgedRow(db: BetterSqlite3.Database, at: number, linkRight: boolean, hashRight: boolean): unknown[] {
  const values = [...rowAt(db, Math.max(1, at - 1))];
  values[SEQUENCE_INDEX] = at;
  values[AUDIT_FIELDS.indexOf('toolName')] = 'forged_tool';
  values[AUDIT_FIELDS.indexOf('decision')] = 'allow_once';
  values[PREVIOUS_HASH_INDEX] = linkRight
    ? at === 1
      ? '0'.repeat(64)
      : rowAt(db, at - 1)[HASH_INDEX]
    : 'e'.repeat(64);
  values[HASH_INDEX] = hashRight ? hashOfStoredRow(values) : 'f'.repeat(64);
  return values;
}

async function verifyFile(
  file: string,
  anchor?: { sequence: number; hash: string },
): Promise<Awaited<ReturnType<typeof verifyAuditDatabase>>> {
  return verifyAuditDatabase(file, { anchor });
}

async function expectProblem(file: string, sequence: number, kind: AuditProblemKind): Promise<string> {
  const result = await verifyFile(file);
  if (result.ok) throw new Error(`verify did not notice the tampering (expected ${kind} at ${sequence})`);
  expect({ sequence: result.problem.sequence, kind: result.problem.kind }).toEqual({ sequence, kind });
  expect(result.problem.message).toContain(String(sequence));
  return result.problem.message;
}

describe('verify names the first tampered row', () => {
  it('an untouched copy verifies', async () => {
    const { file, db } = tamperable();
    db.close();
    expect(await verifyFile(file)).toMatchObject({ ok: true, rowCount: ROWS, head: { sequence: ROWS } });
  });

  it('an edited column: content-changed', async () => {
    const { file, db } = tamperable();
    db.prepare(`UPDATE audit_log SET ${column('decision')} = 'allow_session' WHERE sequence = 7`).run();
    db.close();
    expect(await expectProblem(file, 7, 'content-changed')).toMatch(/Row 7 was changed/);
  });

  it('an edited hash: content-changed at that row', async () => {
    const { file, db } = tamperable();
    db.prepare(`UPDATE audit_log SET hash = ? WHERE sequence = 3`).run('a'.repeat(64));
    db.close();
    await expectProblem(file, 3, 'content-changed');
  });

  it('an edited previousHash: previous-hash-mismatch', async () => {
    const { file, db } = tamperable();
    db.prepare(`UPDATE audit_log SET previous_hash = ? WHERE sequence = 12`).run('b'.repeat(64));
    db.close();
    await expectProblem(file, 12, 'previous-hash-mismatch');
  });

  it('a row edited and re-hashed: the next row no longer chains to it', async () => {
    const { file, db } = tamperable();
    const values = rowAt(db, 9);
    values[AUDIT_FIELDS.indexOf('reason')] = 'nothing to see';
    db.prepare(`UPDATE audit_log SET reason = ?, hash = ? WHERE sequence = 9`).run(
      'nothing to see',
      hashOfStoredRow(values),
    );
    db.close();
    expect(await expectProblem(file, 10, 'previous-hash-mismatch')).toMatch(/row 9 was changed and re-hashed/);
  });

  it('the last row edited and re-hashed: the recorded chain head tells', async () => {
    const { file, db } = tamperable();
    const values = rowAt(db, ROWS);
    values[AUDIT_FIELDS.indexOf('toolName')] = 'innocent';
    db.prepare(`UPDATE audit_log SET tool_name = 'innocent', hash = ? WHERE sequence = ?`).run(
      hashOfStoredRow(values),
      ROWS,
    );
    db.close();
    expect(await expectProblem(file, ROWS, 'content-changed')).toMatch(/rewritten/);
  });

  it('a deleted row: missing (a gap)', async () => {
    const { file, db } = tamperable();
    db.prepare('DELETE FROM audit_log WHERE sequence = 5').run();
    db.close();
    expect(await expectProblem(file, 5, 'missing')).toMatch(/Row 5 is missing/);
  });

  it('deleted rows with the later ones renumbered to close the gap: missing', async () => {
    const { file, db } = tamperable();
    db.prepare('DELETE FROM audit_log WHERE sequence IN (5, 6)').run();
    closeGap(db, 4);
    closeGap(db, 4);
    db.close();
    expect(await expectProblem(file, 5, 'missing')).toMatch(/2 rows before it were deleted/);
  });

  it('the last rows deleted: missing, from the recorded chain head', async () => {
    const { file, db } = tamperable();
    db.prepare('DELETE FROM audit_log WHERE sequence > ?').run(ROWS - 2);
    db.close();
    expect(await expectProblem(file, ROWS - 1, 'missing')).toMatch(
      new RegExp(`Rows ${ROWS - 1} to ${ROWS} are missing`),
    );
  });

  it('a row inserted in the middle: inserted, however well it was forged', async () => {
    for (const [linkRight, hashRight] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      const { file, db } = tamperable();
      const forged = forgedRow(db, 8, linkRight, hashRight);
      openGap(db, 8);
      insertRow(db, forged);
      db.close();
      await expectProblem(file, 8, 'inserted');
    }
  });

  it('a row appended at the end, even a well-forged one: inserted', async () => {
    const { file, db } = tamperable();
    insertRow(db, forgedRow(db, ROWS + 1, true, true));
    db.close();
    await expectProblem(file, ROWS + 1, 'inserted');
  });

  it('a row inserted before the first: inserted', async () => {
    const { file, db } = tamperable();
    const forged = forgedRow(db, 1, true, true);
    forged[SEQUENCE_INDEX] = 0;
    insertRow(db, forged);
    db.close();
    await expectProblem(file, 0, 'inserted');
  });

  it('two rows swapped: reordered, naming the earlier place', async () => {
    const { file, db } = tamperable();
    swap(db, 10, 11);
    db.close();
    expect(await expectProblem(file, 10, 'reordered')).toMatch(/moved out of the order/);
    const far = tamperable();
    swap(far.db, 4, 19);
    far.db.close();
    await expectProblem(far.file, 4, 'reordered');
  });

  it('the recorded head deleted: head-mismatch', async () => {
    const { file, db } = tamperable();
    db.prepare('DELETE FROM audit_head').run();
    db.close();
    await expectProblem(file, ROWS, 'head-mismatch');
  });

  it('a whole rewrite from row 6 on, head included, passes the chain alone; an anchor from an earlier export catches it', async () => {
    const { file, db } = tamperable();
    const anchor = { sequence: 10, hash: rowAt(db, 10)[HASH_INDEX] as string };
    let previous = rowAt(db, 5)[HASH_INDEX] as string;
    for (let sequence = 6; sequence <= ROWS; sequence++) {
      const values = rowAt(db, sequence);
      if (sequence === 6) values[AUDIT_FIELDS.indexOf('decision')] = 'deny';
      values[PREVIOUS_HASH_INDEX] = previous;
      previous = hashOfStoredRow(values);
      db.prepare('UPDATE audit_log SET decision = ?, previous_hash = ?, hash = ? WHERE sequence = ?').run(
        values[AUDIT_FIELDS.indexOf('decision')],
        values[PREVIOUS_HASH_INDEX],
        previous,
        sequence,
      );
    }
    db.prepare('UPDATE audit_head SET hash = ?').run(previous);
    db.close();
    expect(await verifyFile(file)).toMatchObject({ ok: true });
    const anchored = await verifyFile(file, anchor);
    expect(anchored).toMatchObject({ ok: false, problem: { sequence: 10, kind: 'anchor-mismatch' } });
    expect(await verifyFile(file, { sequence: ROWS + 5, hash: anchor.hash })).toMatchObject({
      ok: false,
      problem: { kind: 'anchor-mismatch' },
    });
  });

  it('through the service: audit verify on the app database reports the row', async () => {
    const target = openTempAuditLog();
    try {
      fillLog(target, 6);
      const raw = new BetterSqlite3(target.file);
      raw.exec('DROP TRIGGER audit_log_no_update');
      raw.prepare("UPDATE audit_log SET server_name = 'Elsewhere' WHERE sequence = 4").run();
      raw.close();
      expect(await target.log.verify()).toMatchObject({
        ok: false,
        rowCount: 3,
        problem: { sequence: 4, kind: 'content-changed' },
      });
    } finally {
      target.close();
    }
  });
});

/** Column edits the STRICT table accepts; each changes the value. */
const EDITABLE: readonly AuditField[] = AUDIT_FIELDS.filter(
  (field) => field !== 'sequence' && field !== 'previousHash' && field !== 'hash',
);

function mutated(field: AuditField, value: unknown, pick: number): unknown {
  if (field === 'durationMs' || field === 'resultBytes') return typeof value === 'number' ? value + 1 + pick : pick;
  if (value === null && (field === 'args' || field === 'editedArgs')) return `{"zz":${pick}}`;
  if (typeof value === 'number') return value + 1 + pick;
  if (typeof value === 'string') {
    if (value.startsWith('{')) return value.replace('}', `,"zz":${pick}}`);
    return pick % 2 === 0 ? `${value}x` : `${value.slice(1)}${value.slice(0, 1) === 'Q' ? 'R' : 'Q'}`;
  }
  return `injected ${pick}`;
}

type Tampering =
  | { kind: 'edit'; row: number; field: AuditField; pick: number; rehash: boolean }
  | { kind: 'delete'; row: number; renumber: boolean }
  | { kind: 'insert'; at: number; linkRight: boolean; hashRight: boolean }
  | { kind: 'swap'; first: number; second: number };

const tampering: fc.Arbitrary<Tampering> = fc.oneof(
  fc.record({
    kind: fc.constant('edit' as const),
    row: fc.integer({ min: 1, max: ROWS }),
    field: fc.constantFrom(...EDITABLE, 'previousHash' as const, 'hash' as const),
    pick: fc.nat(1000),
    rehash: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), row: fc.integer({ min: 1, max: ROWS }), renumber: fc.boolean() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.integer({ min: 1, max: ROWS + 1 }),
    linkRight: fc.boolean(),
    hashRight: fc.boolean(),
  }),
  fc
    .tuple(fc.integer({ min: 1, max: ROWS }), fc.integer({ min: 1, max: ROWS }))
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => ({ kind: 'swap' as const, first: Math.min(a, b), second: Math.max(a, b) })),
);

/** Applies the tampering and answers where verify must point, and with which kinds. */
function apply(db: BetterSqlite3.Database, change: Tampering): { sequence: number; kinds: AuditProblemKind[] } {
  switch (change.kind) {
    case 'edit': {
      const values = rowAt(db, change.row);
      const index = AUDIT_FIELDS.indexOf(change.field);
      values[index] =
        change.field === 'hash' || change.field === 'previousHash'
          ? ((change.pick % 255) + 1).toString(16).padStart(2, '0').repeat(32)
          : mutated(change.field, values[index], change.pick);
      const rehash = change.rehash && change.field !== 'hash';
      if (rehash) values[HASH_INDEX] = hashOfStoredRow(values);
      db.prepare(`UPDATE audit_log SET ${column(change.field)} = ?, hash = ? WHERE sequence = ?`).run(
        values[index],
        values[HASH_INDEX],
        change.row,
      );
      if (change.field === 'previousHash') return { sequence: change.row, kinds: ['previous-hash-mismatch'] };
      if (rehash) {
        // A self-consistent row: the next row's link shows it, or the recorded head for the last row.
        return change.row === ROWS
          ? { sequence: ROWS, kinds: ['content-changed'] }
          : { sequence: change.row + 1, kinds: ['previous-hash-mismatch'] };
      }
      return { sequence: change.row, kinds: ['content-changed'] };
    }
    case 'delete':
      db.prepare('DELETE FROM audit_log WHERE sequence = ?').run(change.row);
      if (change.renumber) closeGap(db, change.row);
      return { sequence: change.row, kinds: ['missing'] };
    case 'insert': {
      const forged = forgedRow(db, change.at, change.linkRight, change.hashRight);
      openGap(db, change.at);
      insertRow(db, forged);
      return { sequence: change.at, kinds: ['inserted'] };
    }
    case 'swap':
      swap(db, change.first, change.second);
      return { sequence: change.first, kinds: ['reordered'] };
  }
}

describe('property: every random tampering is detected, naming the row', () => {
  it('edit (any column, re-hashed or not), delete (renumbered or not), insert (forged well or not), reorder', async () => {
    await fc.assert(
      fc.asyncProperty(tampering, async (change) => {
        const { file, db } = tamperable();
        let expected: { sequence: number; kinds: AuditProblemKind[] };
        try {
          expected = apply(db, change);
        } finally {
          db.close();
        }
        const result = await verifyFile(file);
        fs.rmSync(file, { force: true });
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.problem.sequence).toBe(expected.sequence);
        expect(expected.kinds).toContain(result.problem.kind);
      }),
      { numRuns: 400 },
    );
  });
});
