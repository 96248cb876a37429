import type { AuditHead, AuditVerifyResult } from '../../shared/audit';
import { HASH_INDEX, hashOfStoredRow, PREVIOUS_HASH_INDEX, SEQUENCE_INDEX } from './audit-row';
import { ChainChecker, type ChainLink } from './chain-check';
import { intactInParallel, PARALLEL_FROM_ROWS } from './parallel-verify';
import type { AuditProgressListener } from './audit-log';
import {
  ROWS_PER_PROGRESS,
  ROWS_PER_SLICE,
  withAuditSnapshot,
  yieldToEventLoop,
  type AuditSnapshot,
} from './audit-reader';
import { withGuardState } from './audit-guard';

export interface VerifyOptions {
  /** A row trusted from elsewhere (an earlier export's header): the log must still hold it, unchanged. */
  anchor?: AuditHead | undefined;
  onProgress?: AuditProgressListener | undefined;
  /**
   * The audit-worker script (built, or `.ts` under tsx). With it, a large log is first checked in
   * slices on worker threads, one per core; without it, or when that check finds anything amiss, the
   * chain is walked row by row on this thread, which is also what names the first broken row.
   */
  workerFile?: string | undefined;
}

/** A stored row (a `.raw()` array) as the chain checker sees it; a class, so a million rows allocate no closures. */
export class StoredRowLink implements ChainLink {
  readonly sequence: number;
  readonly hash: string;
  readonly previousHash: string;
  readonly computedHash: string;

  constructor(private readonly values: unknown[]) {
    this.sequence = values[SEQUENCE_INDEX] as number;
    this.hash = values[HASH_INDEX] as string;
    this.previousHash = values[PREVIOUS_HASH_INDEX] as string;
    this.computedHash = hashOfStoredRow(values);
  }

  hashWithSequence(sequence: number): string {
    const copy = [...this.values];
    copy[SEQUENCE_INDEX] = sequence;
    return hashOfStoredRow(copy);
  }
}

/**
 * Recomputes the whole chain of the audit log in `databaseFile`, in one snapshot, and reports the
 * first broken row. Reads through its own read-only connection and yields to the event loop as it goes.
 */
export function verifyAuditDatabase(databaseFile: string, options: VerifyOptions = {}): Promise<AuditVerifyResult> {
  return withAuditSnapshot(databaseFile, async (snapshot) => {
    const last = snapshot.lastRow();
    return withGuardState(await verifyChain(databaseFile, snapshot, last, options), snapshot.guardState(), last);
  });
}

/** The chain alone: every row's hash and link, the recorded head, the anchor. */
async function verifyChain(
  databaseFile: string,
  snapshot: AuditSnapshot,
  last: AuditHead,
  options: VerifyOptions,
): Promise<AuditVerifyResult> {
  const head = snapshot.recordedHead();
  const total = last.sequence;
  if (options.workerFile !== undefined && total >= PARALLEL_FROM_ROWS) {
    const anchorHash = options.anchor ? snapshot.hashAt(options.anchor.sequence) : undefined;
    if (
      await intactInParallel({
        databaseFile,
        workerFile: options.workerFile,
        last,
        head,
        anchor: options.anchor,
        anchorHash,
        onProgress: options.onProgress,
      })
    ) {
      return { ok: true, rowCount: total, head: last };
    }
  }
  const checker = new ChainChecker({ head, anchor: options.anchor });
  const rows = snapshot.rows();
  let done = 0;
  try {
    for (const values of rows) {
      if (!checker.push(new StoredRowLink(values))) break;
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
}
