import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AuditHead } from '../../shared/audit';
import type { AuditProgressListener } from './audit-log';
import { GENESIS_HASH } from './audit-row';
import type { AuditWorkerRequest } from './audit-worker';
import type { RangeRequest, RangeSummary } from './range-check';

/** Below this many rows, starting threads costs more than it saves. */
export const PARALLEL_FROM_ROWS = 20_000;
const MAX_WORKERS = 4;

export interface ParallelCheck {
  databaseFile: string;
  workerFile: string;
  /** The last row in the caller's snapshot: the slices cover everything up to it. */
  last: AuditHead;
  /** The chain head recorded at the last commit. */
  head: AuditHead | null;
  anchor?: AuditHead | undefined;
  /** The stored hash at the anchor's sequence, read in the caller's snapshot. */
  anchorHash?: string | null | undefined;
  onProgress?: AuditProgressListener | undefined;
}

/**
 * True only when the whole chain verifies: every slice intact inside, the slices joined end to start
 * from the genesis hash to `last`, the recorded head on `last`, and the anchor (if any) in place.
 * False means "walk it row by row to find out what is wrong", never "it is wrong".
 * Rows up to `last` are append-only, so slices read on their own connections see what the caller's snapshot sees.
 */
export async function intactInParallel(check: ParallelCheck): Promise<boolean> {
  const { last, head, anchor } = check;
  if (head === null || head.sequence !== last.sequence || head.hash !== last.hash) return false;
  if (anchor && (anchor.sequence > last.sequence || check.anchorHash !== anchor.hash)) return false;

  const count = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()));
  const step = Math.ceil(last.sequence / count);
  const requests: RangeRequest[] = Array.from({ length: count }, (_, index) => ({
    databaseFile: check.databaseFile,
    after: index === 0 ? null : index * step,
    through: index === count - 1 ? last.sequence : (index + 1) * step,
  }));
  const done = requests.map(() => 0);
  const summaries = await runAll(check.workerFile, requests, (slice, rows) => {
    done[slice] = rows;
    check.onProgress?.(
      done.reduce((sum, value) => sum + value, 0),
      last.sequence,
    );
  });

  let previous: AuditHead = { sequence: 0, hash: GENESIS_HASH };
  for (const summary of summaries) {
    if (summary.broken || !summary.first || !summary.last) return false;
    if (summary.first.sequence !== previous.sequence + 1 || summary.first.previousHash !== previous.hash) return false;
    previous = summary.last;
  }
  if (previous.sequence !== last.sequence || previous.hash !== last.hash) return false;
  check.onProgress?.(last.sequence, last.sequence);
  return true;
}

/** Runs one worker per slice; if one fails, the others are stopped and the failure is raised. */
async function runAll(
  workerFile: string,
  requests: RangeRequest[],
  onRows: (slice: number, rows: number) => void,
): Promise<RangeSummary[]> {
  const workers: Worker[] = [];
  const runs = requests.map(
    (request, slice) =>
      new Promise<RangeSummary>((resolve, reject) => {
        const task: AuditWorkerRequest = { task: 'verify', ...request };
        const worker = new Worker(workerFile, {
          workerData: task,
          // Under the test runner and the benchmarks the worker is TypeScript source, loaded through tsx.
          ...(workerFile.endsWith('.ts') ? { execArgv: ['--import', 'tsx'] } : {}),
          // Each row's strings are garbage at once: a small young generation keeps each thread's memory small.
          resourceLimits: { maxYoungGenerationSizeMb: 8 },
        });
        workers.push(worker);
        let summary: RangeSummary | null = null;
        worker.on(
          'message',
          (message: { type: 'progress'; rows: number } | { type: 'done'; summary: RangeSummary }) => {
            if (message.type === 'progress') onRows(slice, message.rows);
            else summary = message.summary;
          },
        );
        worker.on('error', reject);
        worker.on('exit', (code) =>
          summary
            ? resolve(summary)
            : reject(new Error(`An audit verification thread stopped (exit code ${code}) before it finished.`)),
        );
      }),
  );
  try {
    return await Promise.all(runs);
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
}
