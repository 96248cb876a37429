// Audit rows shipped into a real rsyslog (Debian package; .ci/run installs it): in order, through an outage,
// and with the cursor in SQLite deciding what is sent again.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SyslogSinkConfig } from '../../../shared/audit-shipping';
import { openDatabase, type Database } from '../../storage/database';
import type { AuditLog } from '../audit-log';
import { AUDIT_COLUMNS_SQL, canonicalRowOf } from '../audit-row';
import { createSqliteAuditLog } from '../sqlite-audit-log';
import { builtAssets } from '../../assets';
import { createAuditShipper, type AuditShipper } from './audit-shipper';
import { parseReceivedLine } from './received-rows';
import { createReceivedVerifier } from './verify-against';
import { createRsyslog, findRsyslogd, type Rsyslog } from './testing/rsyslog';
import { recordRows, waitFor } from './testing/shipping-fixture';
import { titleUnless } from '../../testing/skip-reason';

const rsyslogd = findRsyslogd();
const title = titleUnless(
  'audit shipping to rsyslog',
  !rsyslogd,
  'rsyslogd is not installed here; .ci/run installs it',
);

let dir: string;
let db: Database;
let log: AuditLog;
let rsyslog: Rsyslog;
let shipper: AuditShipper | undefined;

beforeEach(async () => {
  if (!rsyslogd) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-ship-'));
  db = openDatabase(path.join(dir, 'data', 'workbench.db'));
  log = createSqliteAuditLog({ db, dataDir: path.join(dir, 'data'), commitSync: 'normal' });
  rsyslog = await createRsyslog(path.join(dir, 'rsyslog'), rsyslogd);
  await rsyslog.start();
});

afterEach(async () => {
  if (!rsyslogd) return;
  await shipper?.stop();
  shipper = undefined;
  await rsyslog.stop();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sinkConfig = (): SyslogSinkConfig => ({
  type: 'syslog',
  id: 'siem',
  enabled: true,
  host: '127.0.0.1',
  port: rsyslog.port,
  facility: 13,
  batchSize: 100,
});

const startShipper = (overrides: Partial<Parameters<typeof createAuditShipper>[0]> = {}): AuditShipper => {
  const config = sinkConfig();
  shipper = createAuditShipper({
    db,
    targets: () => [{ config, origin: 'settings' }],
    workerFile: builtAssets().auditShipWorker,
    sinkOptions: { connectTimeoutMs: 2000, hostname: 'test-host' },
    pollMs: 100,
    initialBackoffMs: 50,
    maxBackoffMs: 400,
    ...overrides,
  });
  shipper.start();
  return shipper;
};

const lag = (): number => shipper?.status().sinks[0]?.lagRows ?? -1;
const receivedSequences = (): number[] =>
  rsyslog
    .lines()
    .map((line) => parseReceivedLine(line)?.sequence)
    .filter((sequence): sequence is number => sequence !== undefined);
const waitForReceived = (count: number): Promise<void> =>
  waitFor(`rsyslog to hold ${count} distinct rows`, () => new Set(receivedSequences()).size >= count);

describe.skipIf(!rsyslogd)(title, { timeout: 90_000 }, () => {
  it('ships every row once, in sequence order, as RFC 5424 with the row in structured data and its canonical JSON as the message', async () => {
    recordRows(log, 250);
    startShipper();
    recordRows(log, 250, 'later');
    shipper?.wake();
    await waitFor('the sink to catch up', () => lag() === 0);
    await waitForReceived(500);

    expect(receivedSequences()).toEqual(Array.from({ length: 500 }, (_, index) => index + 1));
    const stored = db
      .prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`)
      .raw()
      .all() as unknown[][];
    const lines = rsyslog.lines();
    for (const [index, line] of lines.entries())
      expect(parseReceivedLine(line)?.json).toBe(canonicalRowOf(stored[index] as unknown[]));
    // A denial, with the characters RFC 5424 §6.3.3 escapes in its reason and decided-by.
    const first = lines[0] as string;
    expect(first).toMatch(
      /^<109>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z test-host ai-workbench \d+ audit-decision \[workbench@32473 sequence="1" row_hash="[0-9a-f]{64}" prev_hash="0{64}" kind="decision" /,
    );
    expect(first).toContain('decision="deny" actor="user" decided_by="you decided [in the \\"card\\"\\] \\\\ here"');
    expect(first).toContain('reason="not\\] \\"now\\"');
    // Stored redacted, shipped redacted: the secret never leaves the machine.
    expect(lines.join('\n')).not.toContain('secret-value');
    expect(lines[1]).toMatch(
      /^<110>1 .* audit-result \[workbench@32473 sequence="2" .* outcome="success" duration_ms="1" result_bytes="10"\]/,
    );

    const status = shipper?.status().sinks[0];
    expect(status).toMatchObject({
      id: 'siem',
      type: 'syslog',
      origin: 'settings',
      acknowledgedSequence: 500,
      headSequence: 500,
      lagRows: 0,
      lagSeconds: 0,
      lastError: null,
    });
    // What rsyslog wrote is an anchor for the local chain (audit verify --against).
    expect(await createReceivedVerifier({ db, audit: log }).verifyAgainst(rsyslog.file)).toMatchObject({
      ok: true,
      rowCount: 500,
      received: { rows: 500, lastSequence: 500, duplicates: 0 },
    });
  });

  it('resumes from the persistent cursor: a second shipper (a restart) sends only the rows after it', async () => {
    recordRows(log, 120);
    startShipper();
    await waitFor('the sink to catch up', () => lag() === 0);
    await shipper?.stop();
    shipper = undefined;
    recordRows(log, 80, 'after-restart');
    startShipper();
    await waitFor('the sink to catch up again', () => lag() === 0);
    await waitForReceived(200);
    expect(receivedSequences()).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
  });

  it('rsyslog stopped for a while and restarted: every row arrives, the outage shows as lag and last error', async () => {
    recordRows(log, 300);
    startShipper();
    await waitFor('the sink to catch up', () => lag() === 0);
    await waitForReceived(300);

    await rsyslog.stop();
    recordRows(log, 200, 'outage');
    shipper?.wake();
    await waitFor('the outage to show as an error', () => shipper?.status().sinks[0]?.lastError !== null);
    const during = shipper?.status().sinks[0];
    expect(during?.lagRows).toBeGreaterThan(0);
    expect(during?.lastError).toMatch(/127\.0\.0\.1:\d+/);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a few failed attempts, backing off

    await rsyslog.start();
    recordRows(log, 100, 'back');
    shipper?.wake();
    await waitFor('the sink to catch up after the outage', () => lag() === 0);
    await waitForReceived(600);
    const received = receivedSequences();
    expect(new Set(received)).toEqual(new Set(Array.from({ length: 600 }, (_, index) => index + 1)));
    // Sent again only what the broken connection may have dropped (rows from the resend window), never out of order otherwise.
    const duplicates = received.length - new Set(received).size;
    expect(duplicates).toBeLessThanOrEqual(300);
    expect(shipper?.status().sinks[0]).toMatchObject({ lagRows: 0, lastError: null });
  });

  it('a connection that breaks sends again what it sent within the resend window, and the cursor is back in SQLite', async () => {
    recordRows(log, 100);
    startShipper({ resendWindowMs: 60_000 });
    await waitFor('the sink to catch up', () => lag() === 0);
    await waitForReceived(100);
    await rsyslog.stop();
    // The shipper sees the receiver close the connection and rewinds its persistent cursor at once.
    await waitFor('the cursor to rewind', () => (shipper?.status().sinks[0]?.acknowledgedSequence ?? 0) === 0);
    await rsyslog.start();
    await waitFor('the sink to catch up', () => lag() === 0);
    await waitFor('every row twice', () => receivedSequences().length >= 200);
    const received = receivedSequences();
    expect(received.slice(0, 100)).toEqual(received.slice(100));
  });

  it('takes over at once the lease of a process on this machine that is gone (a crash), but not from a live one', async () => {
    recordRows(log, 50);
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid as number;
    db.prepare('INSERT INTO audit_shipping_cursors (sink_id, lease_owner, lease_until) VALUES (?, ?, ?)').run(
      'siem',
      `${os.hostname()}/${gone}/crashed`,
      Date.now() + 3_600_000,
    );
    startShipper();
    await waitFor('the sink to catch up', () => lag() === 0);
    await waitForReceived(50);
    await shipper?.stop();

    // A live holder (this test's parent process) keeps its lease: nothing is shipped past it.
    recordRows(log, 10, 'blocked');
    db.prepare('UPDATE audit_shipping_cursors SET lease_owner = ?, lease_until = ? WHERE sink_id = ?').run(
      `${os.hostname()}/${process.ppid}/alive`,
      Date.now() + 3_600_000,
      'siem',
    );
    startShipper();
    shipper?.wake();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(shipper?.status().sinks[0]).toMatchObject({ acknowledgedSequence: 50, lagRows: 10 });
  });
});
