import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtAssets } from '../assets';
import { fillLogFast, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { verifyAuditDatabase } from './audit-verify';
import { intactInParallel, PARALLEL_FROM_ROWS } from './parallel-verify';

const WORKER = builtAssets().auditWorker;
const ROWS = PARALLEL_FROM_ROWS + 1234;

let target: TempAuditLog;

beforeAll(() => {
  target = openTempAuditLog('aiwb-parallel-');
  fillLogFast(target.db, ROWS);
}, 60_000);

afterAll(() => target.close());

describe('verification in parallel slices', () => {
  it('an intact log verifies on worker threads, with progress up to the last row', async () => {
    const head = target.log.head();
    const progress: number[] = [];
    expect(
      await intactInParallel({
        databaseFile: target.file,
        workerFile: WORKER,
        last: head,
        head,
        onProgress: (done) => progress.push(done),
      }),
    ).toBe(true);
    expect(progress.at(-1)).toBe(ROWS);
    expect(await verifyAuditDatabase(target.file, { workerFile: WORKER })).toEqual({ ok: true, rowCount: ROWS, head });
  });

  it('answers false (walk it row by row) for a broken slice, a bad join, a wrong head or anchor', async () => {
    const head = target.log.head();
    const check = (changes: Partial<Parameters<typeof intactInParallel>[0]>): Promise<boolean> =>
      intactInParallel({ databaseFile: target.file, workerFile: WORKER, last: head, head, ...changes });
    expect(await check({ head: null })).toBe(false);
    expect(await check({ head: { sequence: head.sequence, hash: 'f'.repeat(64) } })).toBe(false);
    expect(
      await check({
        last: { sequence: head.sequence - 1, hash: head.hash },
        head: { sequence: head.sequence - 1, hash: head.hash },
      }),
    ).toBe(false);
    expect(await check({ anchor: { sequence: 5, hash: 'a'.repeat(64) }, anchorHash: 'b'.repeat(64) })).toBe(false);
    expect(await check({ anchor: { sequence: ROWS + 1, hash: 'a'.repeat(64) }, anchorHash: null })).toBe(false);
  });

  it('a tampered row in any slice is found, and named by the row-by-row walk', async () => {
    const raw = new BetterSqlite3(target.file);
    try {
      raw.exec('DROP TRIGGER audit_log_no_update');
      for (const sequence of [3, Math.floor(ROWS / 2) + 1, ROWS]) {
        raw.prepare('UPDATE audit_log SET result_bytes = result_bytes + 1 WHERE sequence = ?').run(sequence);
        const result = await verifyAuditDatabase(target.file, { workerFile: WORKER });
        expect(result).toMatchObject({ ok: false, problem: { sequence, kind: 'content-changed' } });
        raw.prepare('UPDATE audit_log SET result_bytes = result_bytes - 1 WHERE sequence = ?').run(sequence);
      }
      expect(await verifyAuditDatabase(target.file, { workerFile: WORKER })).toMatchObject({ ok: true });
    } finally {
      raw.close();
    }
  }, 60_000);

  it('a worker file that cannot run is an error, not a verdict', async () => {
    const head = target.log.head();
    await expect(
      intactInParallel({
        databaseFile: target.file,
        workerFile: path.join(target.dir, 'missing-worker.js'),
        last: head,
        head,
      }),
    ).rejects.toThrow();
  });
});
