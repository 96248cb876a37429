import { inlineStatement, statsStatement } from '../../src/main/audit/audit-stats-sql';
import { MILLION, millionRowDatabase, runBenchProcess } from './audit-fixture.ts';
import { loadDetails, type Benchmark } from './harness.ts';
import { measureProcess } from './process-measure.ts';

/** The fixture's million rows span 2026-01-01 to 2026-01-12 (one a second): the page's figures by day over all of them. */
export const INSIGHTS_QUERY = {
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-01-13T00:00:00.000Z',
  bucket: 'day',
} as const;

/**
 * The Insights page's figures (src/main/audit/audit-stats.ts) over 1,000,000 audit rows, in a process of its own; the
 * floor, in the same run, is the same aggregation as one SQL query in the sqlite3 CLI (the statement the page runs,
 * its parameters written in), a whole process timed from its spawn (the mean of one just before and one just after).
 */
export const insights: Benchmark = {
  name: 'insights-1m',
  description: `the Insights page's figures over ${MILLION.toLocaleString('en')} audit rows`,
  async run() {
    const { file } = await millionRowDatabase();
    const sqliteBefore = await sqliteAggregate(file);
    const answer = await runBenchProcess<{ decisions: number; ms: number; baseRss: number; peakRss: number }>([
      'insights',
      file,
    ]);
    const sqliteAfter = await sqliteAggregate(file);
    const sqliteMs = (sqliteBefore + sqliteAfter) / 2;
    // The fixture's decision rows: every other row.
    if (answer.decisions !== MILLION / 2)
      throw new Error(`counted ${answer.decisions} decisions, expected ${MILLION / 2}`);
    const rssGrowthMb = (answer.peakRss - answer.baseRss) / (1024 * 1024);
    const details = {
      decisions: answer.decisions,
      insightsMs: answer.ms,
      sqliteMs,
      sqliteBeforeMs: sqliteBefore,
      sqliteAfterMs: sqliteAfter,
      rssGrowthMb,
      ...loadDetails(),
    };
    console.error(
      `  figures of ${answer.decisions} decisions in ${(answer.ms / 1000).toFixed(2)} s; sqlite3, the same query: ${(sqliteMs / 1000).toFixed(2)} s; +${rssGrowthMb.toFixed(1)} MB; load ${details.load1.toFixed(2)}`,
    );
    return [
      { name: 'insights-1m', value: answer.ms / sqliteMs, unit: 'x', goal: { op: '<=', value: 1.5 }, details },
      { name: 'insights-1m-memory', value: rssGrowthMb, unit: 'MB', goal: { op: '<=', value: 100 }, details },
    ];
  },
};

async function sqliteAggregate(file: string): Promise<number> {
  const sql = inlineStatement(statsStatement(INSIGHTS_QUERY)).replace(/\s+/g, ' ');
  const result = await measureProcess({
    argv: ['sh', '-c', `command -v sqlite3 > /dev/null || exit 127; sqlite3 -readonly '${file}' "$0" > /dev/null`, sql],
  });
  if (result.status === 127)
    throw new Error(
      'insights-1m compares against the sqlite3 command-line tool: install it (apt-get install sqlite3).',
    );
  if (result.status !== 0) throw new Error(`sqlite3 failed (${result.status}): ${result.stderr}`);
  return result.wallMs;
}
