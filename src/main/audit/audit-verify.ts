import type { AuditHead, AuditVerifyResult } from '../../shared/audit';
import { HASH_INDEX, hashOfStoredRow, PREVIOUS_HASH_INDEX, SEQUENCE_INDEX } from './audit-row';
import { ChainChecker, type ChainLink } from './chain-check';
import type { AuditProgressListener } from './audit-log';
import { ROWS_PER_PROGRESS, ROWS_PER_SLICE, withAuditSnapshot, yieldToEventLoop } from './audit-reader';

export interface VerifyOptions {
  /** A row trusted from elsewhere (an earlier export's header): the log must still hold it, unchanged. */
  anchor?: AuditHead | undefined;
  onProgress?: AuditProgressListener | undefined;
}

/** A stored row (a `.raw()` array) as the chain checker sees it. */
export function linkOfStoredRow(values: unknown[], line?: number): ChainLink {
  return {
    sequence: values[SEQUENCE_INDEX] as number,
    hash: values[HASH_INDEX] as string,
    previousHash: values[PREVIOUS_HASH_INDEX] as string,
    computedHash: hashOfStoredRow(values),
    hashWithSequence: (sequence) => {
      const copy = [...values];
      copy[SEQUENCE_INDEX] = sequence;
      return hashOfStoredRow(copy);
    },
    ...(line === undefined ? {} : { line }),
  };
}

/**
 * Recomputes the whole chain of the audit log in `databaseFile`, in one snapshot, and reports the
 * first broken row. Reads through its own read-only connection and yields to the event loop as it goes.
 */
export function verifyAuditDatabase(databaseFile: string, options: VerifyOptions = {}): Promise<AuditVerifyResult> {
  return withAuditSnapshot(databaseFile, async (snapshot) => {
    const checker = new ChainChecker({ head: snapshot.recordedHead(), anchor: options.anchor });
    const total = snapshot.lastRow().sequence;
    const rows = snapshot.rows();
    let done = 0;
    try {
      for (const values of rows) {
        if (!checker.push(linkOfStoredRow(values))) break;
        done++;
        if (done % ROWS_PER_PROGRESS === 0) options.onProgress?.(done, total);
        if (done % ROWS_PER_SLICE === 0) await yieldToEventLoop();
      }
    } finally {
      rows.return?.();
    }
    const problem = await checker.finish({ sequenceOfHash: async (hash) => snapshot.sequenceOfHash(hash) });
    options.onProgress?.(problem ? checker.verified : done, total);
    if (problem) return { ok: false, rowCount: Math.min(checker.verified, Math.max(0, problem.sequence - 1)), problem };
    return { ok: true, rowCount: checker.verified, head: checker.last };
  });
}
