// The app killed with SIGKILL while it records and ships: after a restart every row reaches rsyslog, and a row
// arrives twice only when the batch holding it was not yet acknowledged (its sequence is after the cursor).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../storage/database';
import { createSqliteAuditLog } from '../sqlite-audit-log';
import { parseReceivedLine } from './received-rows';
import { createReceivedVerifier } from './verify-against';
import { createRsyslog, findRsyslogd, type Rsyslog } from './testing/rsyslog';
import { waitFor } from './testing/shipping-fixture';
import { titleUnless } from '../../testing/skip-reason';

const KILLS = 4;
const ROOT = path.resolve(import.meta.dirname, '../../../..');
/** Inside the repository, so the bundle finds better-sqlite3 in node_modules. */
const BUNDLE = path.join(ROOT, '.cache', 'shipping-kill-child', 'child.mjs');

const rsyslogd = findRsyslogd();
const title = titleUnless(
  'audit shipping killed with SIGKILL',
  !rsyslogd,
  'rsyslogd is not installed here; .ci/run installs it',
);

let dir: string;
let dataDir: string;
let databaseFile: string;
let rsyslog: Rsyslog;

beforeAll(async () => {
  if (!rsyslogd) return;
  buildSync({
    // The child and its shipping thread, side by side.
    entryPoints: {
      child: path.join(import.meta.dirname, 'testing', 'shipping-kill-child.ts'),
      worker: path.join(import.meta.dirname, 'testing', 'shipping-kill-worker.ts'),
    },
    outdir: path.dirname(BUNDLE),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-ship-kill-'));
  dataDir = path.join(dir, 'data');
  databaseFile = path.join(dataDir, 'workbench.db');
  openDatabase(databaseFile).close();
  rsyslog = await createRsyslog(path.join(dir, 'rsyslog'), rsyslogd);
  await rsyslog.start();
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (!rsyslogd) return;
  await rsyslog.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Child {
  process: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** When to kill: as the n-th batch is handed to the socket, or once it is written but before the cursor moves. */
interface KillPoint {
  batch: number;
  at: 'sending' | 'written';
}

/** Every child started, so a test that fails or times out leaves none running (a recording child never ends). */
const children = new Set<ChildProcess>();

function startChild(mode: 'record' | 'ship', batchSize: number, kill?: KillPoint): Child {
  const child = spawn(
    process.execPath,
    [BUNDLE, databaseFile, dataDir, String(rsyslog.port), mode, String(batchSize)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  child.on('exit', () => children.delete(child));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (kill !== undefined && (output.match(new RegExp(`^${kill.at} `, 'gm'))?.length ?? 0) >= kill.batch)
      child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, output: () => output, exited };
}

const readState = (): { cursor: number; head: number } => {
  const db = openDatabase(databaseFile);
  try {
    const cursor =
      (db.prepare("SELECT sequence FROM audit_shipping_cursors WHERE sink_id = 'siem'").pluck().get() as
        number | undefined) ?? 0;
    const head = (db.prepare('SELECT coalesce(max(sequence), 0) FROM audit_log').pluck().get() as number) ?? 0;
    return { cursor, head };
  } finally {
    db.close();
  }
};

describe.skipIf(!rsyslogd)(title, { timeout: 180_000 }, () => {
  it(`${KILLS} kills mid-batch, then a restart: every row arrives, duplicates only after the cursor of the kill`, async () => {
    /** For each kill: the cursor as the killed process left it in SQLite, and the log's head then. */
    const kills: { cursor: number; head: number }[] = [];
    /** Batches that were written in full when their process was killed: they must arrive twice. */
    const resentBatches: { first: number; last: number }[] = [];
    for (let round = 0; round < KILLS; round++) {
      // Killed as it hands the n-th batch to the socket (not yet, or partly written), or once the socket took it
      // all but before the cursor moved: either way that batch is unacknowledged and must be sent again.
      const at = round % 2 === 0 ? 'sending' : 'written';
      const child = startChild('record', 300 + round * 200, { batch: 2 + Math.floor(Math.random() * 4), at });
      const exit = await child.exited;
      expect(exit.signal, child.output()).toBe('SIGKILL');
      const state = readState();
      kills.push(state);
      if (at === 'written') {
        const written = [...child.output().matchAll(/^written (\d+) (\d+)$/gm)].at(-1);
        expect(written).toBeDefined();
        // The batch that reached rsyslog was not acknowledged: the cursor stayed before it.
        expect(state.cursor).toBe(Number(written?.[1]) - 1);
        resentBatches.push({ first: Number(written?.[1]), last: Number(written?.[2]) });
      }

      // The restart: ships from the cursor until the sink has acknowledged the whole log.
      const restart = startChild('ship', 250);
      const restarted = await restart.exited;
      expect(restarted.code, restart.output()).toBe(0);
      expect(restart.output()).toContain(`caught-up ${readState().head}`);
    }

    const { head } = readState();
    await waitFor(
      `rsyslog to hold all ${head} rows`,
      () => new Set(rsyslog.lines().map((line) => parseReceivedLine(line)?.sequence)).size >= head,
      30_000,
    );
    const received = rsyslog.lines().map((line) => parseReceivedLine(line));
    const counts = new Map<number, number>();
    for (const row of received) {
      expect(row).not.toBeNull();
      // Complete rows only: a message cut off by the kill does not count as arrived.
      if (row?.json) counts.set(row.sequence, (counts.get(row.sequence) ?? 0) + 1);
    }
    for (let sequence = 1; sequence <= head; sequence++)
      expect(counts.get(sequence), `row ${sequence}`).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts.keys())).toBe(head);

    // A row may arrive twice only when it was after the cursor the killed process left: its batch was unacknowledged.
    const duplicated = [...counts].filter(([, count]) => count > 1).map(([sequence]) => sequence);
    for (const sequence of duplicated) {
      expect(
        kills.some((kill) => sequence > kill.cursor && sequence <= kill.head),
        `row ${sequence} arrived twice but was acknowledged before every kill (${JSON.stringify(kills)})`,
      ).toBe(true);
    }
    for (const { first, last } of resentBatches) {
      for (let sequence = first; sequence <= last; sequence++)
        expect(counts.get(sequence), `row ${sequence} of a batch written before the kill`).toBe(2);
    }
    // A cut-off message is only possible for an unacknowledged batch too.
    const cut = received.filter((row) => row !== null && row.json === null).map((row) => row?.sequence as number);
    for (const sequence of cut) expect(kills.some((kill) => sequence > kill.cursor)).toBe(true);
    // The rsyslog file, duplicates and all, anchors the local chain.
    const db = openDatabase(databaseFile);
    try {
      const verified = await createReceivedVerifier({ db, audit: createSqliteAuditLog({ db, dataDir }) }).verifyAgainst(
        rsyslog.file,
      );
      expect(verified).toMatchObject({
        ok: true,
        rowCount: head,
        received: { rows: head, lastSequence: head, notReceived: 0 },
      });
    } finally {
      db.close();
    }
    console.log(
      `shipping kill test: ${KILLS} kills, ${head} rows, ${received.length} messages received, ${duplicated.length} rows twice, ${cut.length} cut off; cursors at the kills: ${kills.map((kill) => `${kill.cursor}/${kill.head}`).join(', ')}`,
    );
  });
});
