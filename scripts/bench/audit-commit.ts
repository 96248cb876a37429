import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqliteAuditLog } from '../../src/main/audit/sqlite-audit-log';
import { openDatabase } from '../../src/main/storage/database';
import { benchDecision } from './audit-fixture.ts';
import { percentile, type Benchmark } from './harness.ts';

const WARMUP = 50;
const SAMPLES = 1000;

/**
 * What durability costs: decision commits under synchronous=FULL (as the app commits them) against the
 * same code with NORMAL, interleaved one by one on one database so disk and machine noise hit both alike.
 */
export const auditCommit: Benchmark = {
  name: 'audit-commit',
  description: `p50 of a decision commit with synchronous=FULL ÷ the same with NORMAL (${SAMPLES} of each, interleaved)`,
  async run() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-commit-'));
    const db = openDatabase(path.join(dir, 'data', 'workbench.db'));
    try {
      const full = createSqliteAuditLog({ db, dataDir: dir });
      const normal = createSqliteAuditLog({ db, dataDir: dir, commitSync: 'normal' });
      const fullTimes: number[] = [];
      const normalTimes: number[] = [];
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        let start = performance.now();
        full.recordDecision(benchDecision(index));
        const fullTime = performance.now() - start;
        start = performance.now();
        normal.recordDecision(benchDecision(index));
        const normalTime = performance.now() - start;
        if (index >= WARMUP) {
          fullTimes.push(fullTime);
          normalTimes.push(normalTime);
        }
      }
      const details = {
        fullP50Ms: percentile(fullTimes, 50),
        fullP99Ms: percentile(fullTimes, 99),
        normalP50Ms: percentile(normalTimes, 50),
        normalP99Ms: percentile(normalTimes, 99),
        samples: SAMPLES,
      };
      console.error(
        `  FULL p50 ${details.fullP50Ms.toFixed(3)} ms, p99 ${details.fullP99Ms.toFixed(3)} ms; ` +
          `NORMAL p50 ${details.normalP50Ms.toFixed(3)} ms, p99 ${details.normalP99Ms.toFixed(3)} ms`,
      );
      return { value: details.fullP50Ms / details.normalP50Ms, unit: 'x', goal: { op: '<=', value: 10 }, details };
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
