import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAuditShipper, type AuditShipper } from '../../src/main/audit/shipping/audit-shipper';
import { createRsyslog, findRsyslogd, type Rsyslog } from '../../src/main/audit/shipping/testing/rsyslog';
import { createSqliteAuditLog } from '../../src/main/audit/sqlite-audit-log';
import { openDatabase, type Database } from '../../src/main/storage/database';
import type { SyslogSinkConfig } from '../../src/shared/audit-shipping';
import { benchDecision, buildAuditDatabase } from './audit-fixture.ts';
import { percentile, type Benchmark, type NamedBenchMeasurement } from './harness.ts';

const ROWS = 100_000;
/** The built shipping thread, as the app runs it (`npm run bench` builds first). */
const SHIP_WORKER = path.join(import.meta.dirname, '../../out/main/audit-ship-worker.js');
const COMMIT_SAMPLES = 1000;
/** How often a commit is wanted while measuring: about as often as a busy tool loop records. */
const COMMIT_EVERY_MS = 4;

/** Counts the lines rsyslog has written so far, reading only what was appended since the last look. */
function lineCounter(file: string): () => number {
  let offset = 0;
  let lines = 0;
  const buffer = Buffer.alloc(1 << 20);
  return () => {
    if (!fs.existsSync(file)) return 0;
    const fd = fs.openSync(file, 'r');
    try {
      for (;;) {
        const read = fs.readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0) break;
        for (let index = 0; index < read; index++) if (buffer[index] === 0x0a) lines++;
        offset += read;
      }
    } finally {
      fs.closeSync(fd);
    }
    return lines;
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Decision-path latency of a commit: from the moment the tool loop wants to record (a timer fires) to the row
 * being committed (synchronous=FULL, as the app commits). Measured from the timer's due time, so time the
 * event loop spent on shipping work before the commit could run counts against shipping.
 */
async function commitLatencies(db: Database, dataDir: string, samples: number, label: string, onCommit: () => void, until?: () => boolean): Promise<number[]> {
  const log = createSqliteAuditLog({ db, dataDir });
  const times: number[] = [];
  for (let index = 0; index < samples || (until !== undefined && !until()); index++) {
    const due = performance.now() + COMMIT_EVERY_MS;
    await pause(COMMIT_EVERY_MS);
    const start = Math.min(due, performance.now());
    log.recordDecision(benchDecision(index + (label === 'with' ? 1_000_000 : 0)));
    onCommit();
    times.push(performance.now() - start);
    if (until !== undefined && until()) break;
  }
  return times;
}

async function shipAll(db: Database, rsyslog: Rsyslog, sinkId: string, expectedLines: number): Promise<{ shipper: AuditShipper; done: Promise<number> }> {
  const config: SyslogSinkConfig = { type: 'syslog', id: sinkId, enabled: true, host: '127.0.0.1', port: rsyslog.port, facility: 13, batchSize: 500 };
  const shipper = createAuditShipper({ db, targets: () => [{ config, origin: 'settings' }], workerFile: SHIP_WORKER });
  const count = lineCounter(rsyslog.file);
  const start = performance.now();
  shipper.start();
  const done = (async () => {
    while (count() < expectedLines) await pause(20);
    return performance.now() - start;
  })();
  return { shipper, done };
}

/**
 * Ships 100,000 audit rows into a real rsyslogd on loopback (the tests' fixture) and measures the time until
 * rsyslog has written them all; then compares the p99 decision-path latency of an audit commit while shipping
 * another 100,000 against the same commits with nothing shipping.
 */
export const auditShip: Benchmark = {
  name: 'audit-ship',
  description: `${ROWS.toLocaleString('en')} audit rows to a real rsyslog over TCP; p99 of an audit commit while shipping ÷ without`,
  async run(): Promise<NamedBenchMeasurement[]> {
    const rsyslogd = findRsyslogd();
    if (!rsyslogd) throw new Error('audit-ship needs rsyslogd (Debian package rsyslog; .ci/run installs it).');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-ship-'));
    const dataDir = path.join(dir, 'data');
    const file = path.join(dataDir, 'workbench.db');
    // The receiver's disk is not ours in real life: rsyslog writes to memory when it can, so its 140 MB of
    // writes do not compete with the fsync of the commits being measured.
    const receiverDir = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/aiwb-bench-rsyslog-') : path.join(dir, 'rsyslog');
    const rsyslog = await createRsyslog(receiverDir, rsyslogd);
    try {
      buildAuditDatabase(file, ROWS);
      await rsyslog.start();
      const db = openDatabase(file);
      try {
        // 1. Throughput: the backlog of 100,000 rows, nothing else happening.
        const first = await shipAll(db, rsyslog, 'bench-throughput', ROWS);
        const shipMs = await first.done;
        await first.shipper.stop();

        // 2. Commits with nothing shipping, then the same commits while a second sink ships the whole log.
        const without = await commitLatencies(db, dataDir, COMMIT_SAMPLES, 'without', () => {});
        const head = (db.prepare('SELECT max(sequence) FROM audit_log').pluck().get() as number) ?? 0;
        const second = await shipAll(db, rsyslog, 'bench-latency', ROWS + head);
        let shipping = true;
        void second.done.then(() => (shipping = false));
        const withShipping = await commitLatencies(db, dataDir, COMMIT_SAMPLES, 'with', () => second.shipper.wake(), () => !shipping);
        await second.done;
        await second.shipper.stop();

        const withoutP99 = percentile(without, 99);
        const withP99 = percentile(withShipping, 99);
        console.error(
          `  ${ROWS} rows shipped in ${(shipMs / 1000).toFixed(2)} s (${Math.round(ROWS / (shipMs / 1000))} rows/s); ` +
            `commit p50/p99 without shipping ${percentile(without, 50).toFixed(2)}/${withoutP99.toFixed(2)} ms (${without.length}), ` +
            `while shipping ${percentile(withShipping, 50).toFixed(2)}/${withP99.toFixed(2)} ms (${withShipping.length})`,
        );
        return [
          { name: 'audit-ship', value: shipMs / 1000, unit: 's', goal: { op: '<=', value: 10 }, details: { rows: ROWS, shipMs } },
          { name: 'audit-ship-rate', value: Math.round(ROWS / (shipMs / 1000)), unit: 'rows/s', goal: { op: '>=', value: ROWS / 10 } },
          {
            name: 'audit-ship-commit-p99',
            value: withP99 / withoutP99,
            unit: 'x',
            goal: { op: '<=', value: 1.5 },
            details: { withoutP99Ms: withoutP99, withP99Ms: withP99, withoutSamples: without.length, withSamples: withShipping.length },
          },
        ];
      } finally {
        db.close();
      }
    } finally {
      await rsyslog.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(receiverDir, { recursive: true, force: true });
    }
  },
};
