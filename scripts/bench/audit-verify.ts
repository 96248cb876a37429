import { MILLION, millionRowDatabase, runBenchProcess } from './audit-fixture.ts';
import type { Benchmark } from './harness.ts';

/** Recomputes the chain of 1,000,000 rows in a process of its own. */
export const auditVerify: Benchmark = {
  name: 'audit-verify',
  description: `verify the hash chain of ${MILLION.toLocaleString('en')} audit rows`,
  async run() {
    const { file } = await millionRowDatabase();
    const answer = await runBenchProcess<{ rows: number; ms: number; baseRss: number; peakRss: number }>(['verify', file]);
    if (answer.rows !== MILLION) throw new Error(`verified ${answer.rows} rows, expected ${MILLION}`);
    return {
      value: answer.ms / 1000,
      unit: 's',
      goal: { op: '<=', value: 10 },
      details: { rows: answer.rows, rssGrowthMb: (answer.peakRss - answer.baseRss) / (1024 * 1024) },
    };
  },
};
