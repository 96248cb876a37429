/**
 * One audit operation in a process of its own, so time and memory are measured without the
 * benchmark runner's own allocations: `build FILE ROWS`, `export FILE OUT`, `verify FILE`, `insights FILE`.
 * Prints one JSON line.
 */
import path from 'node:path';
import { exportAuditLog } from '../../src/main/audit/audit-export';
import { verifyAuditDatabase } from '../../src/main/audit/audit-verify';
import { createAuditStats } from '../../src/main/audit/audit-stats';
import { Sqlite } from '../../src/main/storage/sqlite-driver';
import { buildAuditDatabase } from './audit-fixture.ts';
import { INSIGHTS_QUERY } from './insights.ts';

const [operation, file, extra] = process.argv.slice(2);
if (!operation || !file) throw new Error('usage: audit-bench-process build|export|verify FILE [ROWS|OUT]');
// The built worker, as the app runs it (`npm run bench` builds first).
const workerFile = path.join(import.meta.dirname, '../../out/main/audit-worker.js');

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
let peakRss = 0;
const sample = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
};

collect();
const baseRss = process.memoryUsage.rss();
const sampler = setInterval(sample, 5);
const started = performance.now();
let answer: Record<string, unknown>;
switch (operation) {
  case 'build':
    buildAuditDatabase(file, Number(extra));
    answer = {};
    break;
  case 'export': {
    if (!extra) throw new Error('export needs an output path');
    const result = await exportAuditLog({
      databaseFile: file,
      dataDir: path.dirname(file),
      format: 'jsonl',
      path: extra,
      overwrite: true,
      onProgress: sample,
    });
    answer = { rows: result.rowCount, bytes: result.bytes };
    break;
  }
  case 'verify': {
    const result = await verifyAuditDatabase(file, { onProgress: sample, workerFile });
    if (!result.ok) throw new Error(`the benchmark database does not verify: ${result.problem.message}`);
    answer = { rows: result.rowCount };
    break;
  }
  case 'insights': {
    // What the page asks for: the figures of the whole period, on a connection like the app's.
    const db = new Sqlite(file, { readonly: true, fileMustExist: true });
    const stats = createAuditStats(db)(INSIGHTS_QUERY, []);
    db.close();
    answer = { decisions: stats.totals.total };
    break;
  }
  default:
    throw new Error(`unknown operation ${operation}`);
}
const ms = performance.now() - started;
clearInterval(sampler);
sample();
console.log(JSON.stringify({ ...answer, ms, baseRss, peakRss }));
