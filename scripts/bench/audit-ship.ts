import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
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
const COMMIT_SAMPLES = 2000;
/** Commits made before measuring, so the write-ahead log has reached its steady size (see run). */
const WARM_UP_COMMITS = 300;
/** How often a commit is wanted while measuring: about as often as a busy tool loop records. */
const COMMIT_EVERY_MS = 4;

/**
 * Counts the lines rsyslog has written so far, on a thread of its own: reading 140 MB of receiver output on the
 * main thread would block the very commits whose latency is measured (the app itself never reads it).
 */
function lineCounter(file: string): { count: () => number; stop: () => Promise<number> } {
  const shared = new Int32Array(new SharedArrayBuffer(4));
  const source = `
    const fs = require('node:fs');
    const { workerData } = require('node:worker_threads');
    const { file, shared } = workerData;
    const buffer = Buffer.alloc(1 << 20);
    let offset = 0;
    let lines = 0;
    for (;;) {
      if (fs.existsSync(file)) {
        const fd = fs.openSync(file, 'r');
        for (;;) {
          const read = fs.readSync(fd, buffer, 0, buffer.length, offset);
          if (read === 0) break;
          for (let at = buffer.indexOf(10); at !== -1 && at < read; at = buffer.indexOf(10, at + 1)) lines++;
          offset += read;
        }
        fs.closeSync(fd);
        Atomics.store(shared, 0, lines);
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }`;
  const worker = new Worker(source, { eval: true, workerData: { file, shared } });
  return { count: () => Atomics.load(shared, 0), stop: () => worker.terminate() };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let nextDecision = 0;

/**
 * Decision-path latency of a commit: from the moment the tool loop wants to record (a timer fires) to the row
 * being committed (synchronous=FULL, as the app commits). Measured from the timer's due time, so time the
 * event loop spent on shipping work before the commit could run counts against shipping.
 */
async function commitLatencies(
  db: Database,
  dataDir: string,
  samples: number,
  onCommit: () => void,
  until?: () => boolean,
): Promise<Latencies> {
  const log = createSqliteAuditLog({ db, dataDir });
  const latencies: Latencies = { total: [], late: [], commit: [] };
  for (let index = 0; index < samples; index++) {
    const due = performance.now() + COMMIT_EVERY_MS;
    await pause(COMMIT_EVERY_MS);
    const woke = performance.now();
    const start = Math.min(due, woke);
    log.recordDecision(benchDecision(1_000_000 + nextDecision++));
    const committed = performance.now();
    onCommit();
    latencies.total.push(performance.now() - start);
    latencies.late.push(Math.max(0, woke - due));
    latencies.commit.push(committed - woke);
    if (until !== undefined && until()) break;
  }
  return latencies;
}

/** Each commit's whole latency, and its two parts: how late the timer woke, and the commit itself (with its fsync). */
interface Latencies {
  total: number[];
  late: number[];
  commit: number[];
}

const append = (into: Latencies, more: Latencies): void => {
  into.total.push(...more.total);
  into.late.push(...more.late);
  into.commit.push(...more.commit);
};

/** `p50/p99` of each part, in ms, for the details of the line. */
const parts = (latencies: Latencies): Record<string, string> =>
  Object.fromEntries(
    Object.entries(latencies).map(([part, times]) => [
      part,
      `${percentile(times, 50).toFixed(2)}/${percentile(times, 99).toFixed(2)} ms`,
    ]),
  );

function startShipping(db: Database, rsyslog: Rsyslog, sinkId: string): AuditShipper {
  const config: SyslogSinkConfig = {
    type: 'syslog',
    id: sinkId,
    enabled: true,
    host: '127.0.0.1',
    port: rsyslog.port,
    facility: 13,
    batchSize: 500,
  };
  const shipper = createAuditShipper({ db, targets: () => [{ config, origin: 'settings' }], workerFile: SHIP_WORKER });
  shipper.start();
  return shipper;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await pause(20);
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
    const receiverDir = fs.existsSync('/dev/shm')
      ? fs.mkdtempSync('/dev/shm/aiwb-bench-rsyslog-')
      : path.join(dir, 'rsyslog');
    const rsyslog = await createRsyslog(receiverDir, rsyslogd);
    try {
      buildAuditDatabase(file, ROWS);
      await rsyslog.start();
      const db = openDatabase(file);
      try {
        // 1. Throughput: the backlog of 100,000 rows, nothing else happening, until rsyslog wrote them all.
        const counter = lineCounter(rsyslog.file);
        const start = performance.now();
        const first = startShipping(db, rsyslog, 'bench-throughput');
        await until(() => counter.count() >= ROWS);
        const shipMs = performance.now() - start;
        await counter.stop();
        await first.stop();

        // 2. The same number of commits with nothing shipping and while shipping, in alternating rounds (so a
        // drift of the machine's speed affects both alike): each shipping round is a new sink shipping the whole
        // log from the start, until its cursor reaches the head; the quiet round after it takes as many commits.
        // First, unmeasured, enough commits to grow the write-ahead log to the size it then keeps (SQLite's
        // automatic checkpoint at 1,000 pages, ~150 commits): while it grows, each commit appends to the file,
        // which costs more, and the first round, a shipping one, would carry all of that.
        await commitLatencies(db, dataDir, WARM_UP_COMMITS, () => {});
        const without: Latencies = { total: [], late: [], commit: [] };
        const withShipping: Latencies = { total: [], late: [], commit: [] };
        for (let round = 0; withShipping.total.length < COMMIT_SAMPLES; round++) {
          const head = db.prepare('SELECT max(sequence) FROM audit_log').pluck().get() as number;
          const shipper = startShipping(db, rsyslog, `bench-latency-${round}`);
          const caughtUp = (): boolean => (shipper.status().sinks[0]?.acknowledgedSequence ?? 0) >= head;
          const wanted = COMMIT_SAMPLES - withShipping.total.length;
          const measured = await commitLatencies(db, dataDir, wanted, () => shipper.wake(), caughtUp);
          append(withShipping, measured);
          await until(caughtUp);
          await shipper.stop();
          append(without, await commitLatencies(db, dataDir, measured.total.length, () => {}));
        }

        const withoutP99 = percentile(without.total, 99);
        const withP99 = percentile(withShipping.total, 99);
        console.error(
          `  ${ROWS} rows shipped in ${(shipMs / 1000).toFixed(2)} s (${Math.round(ROWS / (shipMs / 1000))} rows/s); commit p50/p99 (timer lateness, commit) ` +
            `without shipping ${Object.values(parts(without)).join(', ')} (${without.total.length}), while shipping ${Object.values(parts(withShipping)).join(', ')} (${withShipping.total.length})`,
        );
        return [
          {
            name: 'audit-ship',
            value: shipMs / 1000,
            unit: 's',
            goal: { op: '<=', value: 10 },
            details: { rows: ROWS, shipMs },
          },
          {
            name: 'audit-ship-rate',
            value: Math.round(ROWS / (shipMs / 1000)),
            unit: 'rows/s',
            goal: { op: '>=', value: ROWS / 10 },
          },
          {
            name: 'audit-ship-commit-p99',
            value: withP99 / withoutP99,
            unit: 'x',
            goal: { op: '<=', value: 1.5 },
            details: {
              withoutP99Ms: withoutP99,
              withP99Ms: withP99,
              withoutSamples: without.total.length,
              withSamples: withShipping.total.length,
              withoutLateP99Ms: percentile(without.late, 99),
              withLateP99Ms: percentile(withShipping.late, 99),
              withoutCommitP99Ms: percentile(without.commit, 99),
              withCommitP99Ms: percentile(withShipping.commit, 99),
            },
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
