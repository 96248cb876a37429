import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from '../storage/sqlite-driver';
import type { AuditHead } from '../../shared/audit';
import type { AuditExportFormat } from '../../shared/audit';
import { readGuardState, type AuditGuardState } from './audit-guard';
import { AUDIT_COLUMNS_SQL, GENESIS_HASH } from './audit-row';
import { exportLineQuery } from './export-sql';

/** Rows handled between two yields to the event loop, so a long read never freezes the app. */
export const ROWS_PER_SLICE = 4096;
/** Rows between two progress reports. */
export const ROWS_PER_PROGRESS = 16_384;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A read-only connection of its own for a long read (an export, a verification). Iterating keeps a
 * connection busy until the last row, across many event-loop turns; on the app's connection that would
 * block every write meanwhile, including the decisions the tool loop must record before a tool runs.
 * The read runs in one transaction, so it sees one snapshot even while the app keeps appending.
 */
export async function withAuditSnapshot<T>(
  databaseFile: string,
  read: (reader: AuditSnapshot) => Promise<T>,
): Promise<T> {
  const db = new Sqlite(databaseFile, { readonly: true, fileMustExist: true });
  try {
    db.exec('BEGIN');
    try {
      return await read(createSnapshot(db));
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}

export interface AuditSnapshot {
  /** The chain head recorded at the last commit, or null when none is recorded. */
  recordedHead(): AuditHead | null;
  /** The last row's sequence and hash (sequence 0 and the genesis hash when the log is empty). */
  lastRow(): AuditHead;
  countThrough(sequence: number): number;
  /** Every row through `sequence`, in sequence order, as arrays in `AUDIT_FIELDS` order. */
  rows(throughSequence?: number): IterableIterator<unknown[]>;
  /** Every row through `sequence` as the export's line, in three parts (see export-sql.ts). */
  exportLines(format: AuditExportFormat, throughSequence: number): IterableIterator<unknown[]>;
  sequenceOfHash(hash: string): number | null;
  /** The stored hash of the row with this sequence, or null when there is none. */
  hashAt(sequence: number): string | null;
  /** What the log remembers about itself: the rows ever written, the times its protections were put back. */
  guardState(): AuditGuardState;
}

function createSnapshot(db: BetterSqlite3.Database): AuditSnapshot {
  const headRow = db.prepare('SELECT sequence, hash FROM audit_head WHERE id = 1');
  const last = db.prepare('SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1');
  const count = db.prepare('SELECT count(*) FROM audit_log WHERE sequence <= ?').pluck();
  const all = db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`).raw();
  const through = db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log WHERE sequence <= ? ORDER BY sequence`).raw();
  const lines = {
    jsonl: db.prepare(exportLineQuery('jsonl').sql).raw(),
    csv: db.prepare(exportLineQuery('csv').sql).raw(),
  };
  const byHash = db.prepare('SELECT sequence FROM audit_log WHERE hash = ? ORDER BY sequence LIMIT 1').pluck();
  const hashAt = db.prepare('SELECT hash FROM audit_log WHERE sequence = ?').pluck();
  return {
    recordedHead: () => (headRow.get() as AuditHead | undefined) ?? null,
    lastRow: () => (last.get() as AuditHead | undefined) ?? { sequence: 0, hash: GENESIS_HASH },
    countThrough: (sequence) => count.get(sequence) as number,
    rows: (throughSequence) =>
      (throughSequence === undefined ? all.iterate() : through.iterate(throughSequence)) as IterableIterator<unknown[]>,
    exportLines: (format, throughSequence) => lines[format].iterate(throughSequence) as IterableIterator<unknown[]>,
    sequenceOfHash: (hash) => (byHash.get(hash) as number | undefined) ?? null,
    hashAt: (sequence) => (hashAt.get(sequence) as string | undefined) ?? null,
    guardState: () => readGuardState(db),
  };
}
