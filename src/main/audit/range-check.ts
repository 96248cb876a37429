import { Sqlite } from '../storage/sqlite-driver';
import type { AuditHead } from '../../shared/audit';
import { AUDIT_COLUMNS_SQL, HASH_INDEX, hashOfStoredRow, PREVIOUS_HASH_INDEX, SEQUENCE_INDEX } from './audit-row';

/** One slice of the chain for a worker: rows with `after < sequence <= through` (no lower bound when `after` is null). */
export interface RangeRequest {
  databaseFile: string;
  after: number | null;
  through: number;
}

/** What a slice looks like from outside, so the slices can be joined: its ends, and whether it held together inside. */
export interface RangeSummary {
  rows: number;
  first: { sequence: number; previousHash: string } | null;
  last: AuditHead | null;
  /** A row whose content does not give its hash, or that does not follow the row before it in the slice. */
  broken: boolean;
}

/** Rows between two progress reports from a worker. */
export const RANGE_PROGRESS_EVERY = 16_384;

/**
 * Checks one slice of the chain on a read-only connection of its own: every row's hash against its
 * content, and each row against the one before it. Runs in a worker thread, so it may block.
 */
export function checkRange(
  { databaseFile, after, through }: RangeRequest,
  onProgress: (rows: number) => void,
): RangeSummary {
  const db = new Sqlite(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const statement =
      after === null
        ? db
            .prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log WHERE sequence <= ? ORDER BY sequence`)
            .raw()
            .bind(through)
        : db
            .prepare(
              `SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log WHERE sequence > ? AND sequence <= ? ORDER BY sequence`,
            )
            .raw()
            .bind(after, through);
    let first: RangeSummary['first'] = null;
    let last: AuditHead | null = null;
    let rows = 0;
    for (const values of statement.iterate() as IterableIterator<unknown[]>) {
      const sequence = values[SEQUENCE_INDEX] as number;
      const hash = values[HASH_INDEX] as string;
      const previousHash = values[PREVIOUS_HASH_INDEX] as string;
      const follows = last === null || (sequence === last.sequence + 1 && previousHash === last.hash);
      if (!follows || hashOfStoredRow(values) !== hash) return { rows, first, last, broken: true };
      first ??= { sequence, previousHash };
      last = { sequence, hash };
      rows++;
      if (rows % RANGE_PROGRESS_EVERY === 0) onProgress(rows);
    }
    return { rows, first, last, broken: false };
  } finally {
    db.close();
  }
}
