import fs from 'node:fs';
import path from 'node:path';
import { MILLION, millionRowDatabase, runBenchProcess, sqliteJsonDump } from './audit-fixture.ts';
import { loadDetails, type Benchmark } from './harness.ts';

const MB = 1024 * 1024;

interface ExportAnswer {
  rows: number;
  bytes: number;
  ms: number;
  baseRss: number;
  peakRss: number;
}

/**
 * 1,000,000 rows to JSONL in a process of its own: wall time, and how far its RSS rose above where it started; and
 * the time against the floor in the same run, sqlite3's own JSON dump of the same table (the mean of one dump just
 * before and one just after ours).
 */
export const auditExport: Benchmark = {
  name: 'audit-export',
  description: `export ${MILLION.toLocaleString('en')} audit rows to JSONL: time, and RSS growth of the exporting process`,
  async run() {
    const { file, buildMs } = await millionRowDatabase();
    const out = path.join(path.dirname(path.dirname(file)), 'export.jsonl');
    try {
      const sqliteBefore = await sqliteJsonDump(file, { out });
      const answer = await runBenchProcess<ExportAnswer>(['export', file, out]);
      const sqliteAfter = await sqliteJsonDump(file, { out });
      const sqliteMs = (sqliteBefore + sqliteAfter) / 2;
      if (answer.rows !== MILLION) throw new Error(`exported ${answer.rows} rows, expected ${MILLION}`);
      const details = {
        rows: answer.rows,
        exportMs: answer.ms,
        sqliteJsonMs: sqliteMs,
        sqliteBeforeMs: sqliteBefore,
        sqliteAfterMs: sqliteAfter,
        fileMb: answer.bytes / MB,
        baseRssMb: answer.baseRss / MB,
        peakRssMb: answer.peakRss / MB,
        fixtureBuildMs: buildMs,
        ...loadDetails(),
      };
      console.error(
        `  ${answer.rows} rows, ${details.fileMb.toFixed(0)} MB written in ${(answer.ms / 1000).toFixed(2)} s; sqlite3 -json ${(sqliteMs / 1000).toFixed(2)} s; RSS ${details.baseRssMb.toFixed(1)} → peak ${details.peakRssMb.toFixed(1)} MB; load ${details.load1.toFixed(2)}`,
      );
      return [
        {
          name: 'audit-export-vs-sqlite',
          value: answer.ms / sqliteMs,
          unit: 'x',
          goal: { op: '<=', value: 1.5 },
          details,
        },
        { name: 'audit-export-time', value: answer.ms / 1000, unit: 's', goal: { op: '<=', value: 10 }, details },
        {
          name: 'audit-export-rss',
          value: (answer.peakRss - answer.baseRss) / MB,
          unit: 'MB',
          goal: { op: '<=', value: 50 },
          details,
        },
      ];
    } finally {
      fs.rmSync(out, { force: true });
    }
  },
};
