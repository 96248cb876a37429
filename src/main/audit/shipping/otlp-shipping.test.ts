// Audit rows shipped as OpenTelemetry logs over OTLP/HTTP (protobuf) by the official SDK, into a receiver that
// decodes the real payloads (testing/otlp-receiver.ts; no collector binary can be installed here).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OtlpSinkConfig } from '../../../shared/audit-shipping';
import { openDatabase, type Database } from '../../storage/database';
import type { AuditLog } from '../audit-log';
import { AUDIT_COLUMNS_SQL, canonicalRowOf } from '../audit-row';
import { createSqliteAuditLog } from '../sqlite-audit-log';
import { builtAssets } from '../../assets';
import { createAuditShipper, type AuditShipper } from './audit-shipper';
import { startOtlpReceiver, type OtlpReceiver } from './testing/otlp-receiver';
import { recordRow, recordRows, waitFor } from './testing/shipping-fixture';

let dir: string;
let db: Database;
let log: AuditLog;
let receiver: OtlpReceiver;
let shipper: AuditShipper | undefined;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-otlp-'));
  db = openDatabase(path.join(dir, 'data', 'workbench.db'));
  log = createSqliteAuditLog({ db, dataDir: path.join(dir, 'data'), commitSync: 'normal' });
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await shipper?.stop();
  shipper = undefined;
  await receiver.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

const startShipper = (config: Partial<OtlpSinkConfig> = {}, busyWindowMs?: number): AuditShipper => {
  const sink: OtlpSinkConfig = { type: 'otlp', id: 'otel', enabled: true, batchSize: 100, ...config };
  shipper = createAuditShipper({
    db,
    targets: () => [{ config: sink, origin: 'settings' }],
    workerFile: builtAssets().auditShipWorker,
    version: '9.9.9',
    pollMs: 100,
    initialBackoffMs: 50,
    maxBackoffMs: 400,
    busyWindowMs,
  });
  shipper.start();
  return shipper;
};

const status = () => shipper?.status().sinks[0];
const receivedRecords = () => receiver.accepted.flatMap((request) => request.records);

describe('audit shipping over OTLP/HTTP', () => {
  it('sends each row as one log record: workbench.audit.* attributes, the canonical row as body, the SDK honouring OTEL_EXPORTER_OTLP_* variables', async () => {
    // No endpoint in the settings: the standard variables decide, as for any OpenTelemetry SDK.
    vi.stubEnv('OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'authorization=Bearer org-token,x-tenant=security');
    recordRows(log, 230);
    startShipper();
    await waitFor('the sink to catch up', () => status()?.lagRows === 0);

    const records = receivedRecords();
    expect(records.map((record) => record.attributes['workbench.audit.sequence'])).toEqual(
      Array.from({ length: 230 }, (_, index) => index + 1),
    );
    // Batches of 100: three requests, each with the headers from the variable, to the logs path.
    expect(receiver.accepted.map((request) => request.records.length)).toEqual([100, 100, 30]);
    for (const request of receiver.accepted) {
      expect(request.path).toBe('/v1/logs');
      expect(request.headers['content-type']).toBe('application/x-protobuf');
      expect(request.headers.authorization).toBe('Bearer org-token');
      expect(request.headers['x-tenant']).toBe('security');
    }
    const stored = db
      .prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`)
      .raw()
      .all() as unknown[][];
    for (const [index, record] of records.entries())
      expect(record.body).toBe(canonicalRowOf(stored[index] as unknown[]));

    const [first, second] = records;
    const firstRow = JSON.parse(first?.body ?? '{}') as { hash: string; time: string };
    expect(first).toMatchObject({
      severityNumber: 10,
      severityText: 'NOTICE',
      timeUnixNano: `${Date.parse(firstRow.time)}000000`,
      scope: 'ai-workbench.audit',
      resource: { 'service.name': 'ai-workbench', 'service.version': '9.9.9', 'host.name': os.hostname() },
      attributes: {
        'workbench.audit.sequence': 1,
        'workbench.audit.row_hash': firstRow.hash,
        'workbench.audit.prev_hash': '0'.repeat(64),
        'workbench.audit.kind': 'decision',
        'workbench.audit.decision': 'deny',
        'workbench.audit.actor': 'user',
        'workbench.audit.server': 'Files',
        'workbench.audit.tool': 'write_file',
        'workbench.audit.reason': 'not] "now"\nplease',
        'gen_ai.tool.name': 'write_file',
        'gen_ai.tool.call.id': 'call-r-0',
      },
    });
    expect(second).toMatchObject({
      severityNumber: 9,
      attributes: {
        'workbench.audit.kind': 'result',
        'workbench.audit.outcome': 'success',
        'workbench.audit.duration_ms': 1,
        'workbench.audit.result_bytes': 10,
      },
    });
    // Stored redacted, shipped redacted.
    expect(JSON.stringify(records)).not.toContain('secret-value');
    expect(status()).toMatchObject({ type: 'otlp', acknowledgedSequence: 230, lagRows: 0, lastError: null });
  });

  it('advances the cursor only on a successful export: a refusing collector leaves the rows waiting, and they all arrive once it accepts', async () => {
    receiver.refuse = 400;
    recordRows(log, 150);
    startShipper({ endpoint: receiver.url });
    await waitFor('the refusal to show', () => (status()?.lastError ?? null) !== null);
    expect(status()).toMatchObject({
      acknowledgedSequence: 0,
      lagRows: 150,
      lastError: expect.stringMatching(/OTLP export failed/),
    });
    expect(receiver.refused).toBeGreaterThan(0);
    expect(receiver.accepted).toEqual([]);

    receiver.refuse = null;
    recordRows(log, 50, 'after');
    shipper?.wake();
    await waitFor('the sink to catch up', () => status()?.lagRows === 0);
    // Every row exactly once among the accepted exports: a refused export counts for nothing.
    expect(receivedRecords().map((record) => record.attributes['workbench.audit.sequence'])).toEqual(
      Array.from({ length: 200 }, (_, index) => index + 1),
    );
    expect(status()).toMatchObject({ acknowledgedSequence: 200, lastError: null });
  });

  it('yields to the decision path: while rows are being committed a catch-up goes in small batches, with nothing committing in full ones, and every row arrives once', async () => {
    recordRows(log, 1000, 'backlog');
    let committed = 0;
    // A busy tool loop: a row committed (and the shipper woken, as the app's audit log does) every 5 ms.
    const loop = setInterval(() => {
      recordRow(log, committed++, 'busy');
      shipper?.wake();
    }, 5);
    startShipper({ endpoint: receiver.url, batchSize: 500 }, 200);
    shipper?.wake();
    await waitFor('the backlog to go out while busy', () => (status()?.acknowledgedSequence ?? 0) >= 1000);
    clearInterval(loop);
    // The first batch may be full: the shipper started before it had seen a commit.
    const whileBusy = receiver.accepted.slice(1).map((request) => request.records.length);
    expect(whileBusy.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...whileBusy)).toBeLessThanOrEqual(100);

    // Quiet for longer than the busy window: a new backlog goes in the sink's own batch size.
    await waitFor('the sink to catch up', () => status()?.lagRows === 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = receiver.accepted.length;
    recordRows(log, 1000, 'quiet');
    await waitFor('the quiet backlog to go out', () => status()?.lagRows === 0);
    // The shipper's own thread may read while the rows are still being written (a first short batch), but once it
    // has a backlog it sends the sink's full batch, not the small ones of a busy time.
    const quiet = receiver.accepted.slice(before).map((request) => request.records.length);
    expect(quiet.reduce((sum, size) => sum + size, 0)).toBe(1000);
    expect(Math.max(...quiet)).toBe(500);
    const total = 2000 + committed;
    expect(receivedRecords().map((record) => record.attributes['workbench.audit.sequence'])).toEqual(
      Array.from({ length: total }, (_, index) => index + 1),
    );
  });

  it('refuses a protocol other than http/protobuf by name instead of sending nothing silently', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc');
    recordRows(log, 3);
    startShipper({ endpoint: receiver.url });
    await waitFor('the refusal to show', () => (status()?.lastError ?? null) !== null);
    expect(status()?.lastError).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"; AI Workbench ships audit logs over http/protobuf only',
    );
    expect(receiver.accepted).toEqual([]);
  });
});
