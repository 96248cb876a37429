import { MILLION, millionRowDatabase, runBenchProcess, sqliteJsonDump } from './audit-fixture.ts';
import { loadDetails, type Benchmark } from './harness.ts';

/**
 * Recomputes the chain of 1,000,000 rows in a process of its own; and the same time against the floor in the same
 * run, sqlite3's JSON dump of the table piped through sha256sum (the mean of one just before and one just after).
 */
export const auditVerify: Benchmark = {
  name: 'audit-verify',
  description: `verify the hash chain of ${MILLION.toLocaleString('en')} audit rows`,
  async run() {
    const { file } = await millionRowDatabase();
    const sqliteBefore = await sqliteJsonDump(file, 'sha256sum');
    const answer = await runBenchProcess<{ rows: number; ms: number; baseRss: number; peakRss: number }>([
      'verify',
      file,
    ]);
    const sqliteAfter = await sqliteJsonDump(file, 'sha256sum');
    const sqliteMs = (sqliteBefore + sqliteAfter) / 2;
    if (answer.rows !== MILLION) throw new Error(`verified ${answer.rows} rows, expected ${MILLION}`);
    const details = {
      rows: answer.rows,
      verifyMs: answer.ms,
      sqliteSha256Ms: sqliteMs,
      sqliteBeforeMs: sqliteBefore,
      sqliteAfterMs: sqliteAfter,
      rssGrowthMb: (answer.peakRss - answer.baseRss) / (1024 * 1024),
      ...loadDetails(),
    };
    console.error(
      `  verified ${answer.rows} rows in ${(answer.ms / 1000).toFixed(2)} s; sqlite3 -json | sha256sum ${(sqliteMs / 1000).toFixed(2)} s; load ${details.load1.toFixed(2)}`,
    );
    return [
      { name: 'audit-verify', value: answer.ms / 1000, unit: 's', goal: { op: '<=', value: 10 }, details },
      { name: 'audit-verify-vs-sqlite', value: answer.ms / sqliteMs, unit: 'x', goal: { op: '<=', value: 2 }, details },
    ];
  },
};
