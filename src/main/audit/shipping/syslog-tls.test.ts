// Syslog over TLS (RFC 5425): the receiver's certificate is checked against the CA the settings name; a receiver
// the CA did not sign gets nothing. The receiver is Node's TLS server (rsyslog's TLS driver is a separate Debian
// package); the certificates are made with openssl for the test.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SyslogSinkConfig } from '../../../shared/audit-shipping';
import { openDatabase, type Database } from '../../storage/database';
import { createSqliteAuditLog } from '../sqlite-audit-log';
import { builtAssets } from '../../assets';
import { createAuditShipper, type AuditShipper } from './audit-shipper';
import { parseReceivedLine } from './received-rows';
import { recordRows, waitFor } from './testing/shipping-fixture';
import { titleUnless } from '../../testing/skip-reason';

const openssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
const title = titleUnless('syslog over TLS', !openssl, 'openssl is not installed here to make the certificates');

let dir: string;
let db: Database;
let shipper: AuditShipper | undefined;
let server: tls.Server | undefined;

beforeEach(() => {
  if (!openssl) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-ship-tls-'));
  db = openDatabase(path.join(dir, 'data', 'workbench.db'));
  recordRows(createSqliteAuditLog({ db, dataDir: path.join(dir, 'data'), commitSync: 'normal' }), 30);
});

afterEach(async () => {
  if (!openssl) return;
  await shipper?.stop();
  shipper = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A self-signed certificate for `localhost`: its own CA. */
function certificate(name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** A TLS receiver keeping every byte; octet-counted frames split as a syslog server would. */
async function listen(identity: { cert: string; key: string }): Promise<{ port: number; messages: () => string[] }> {
  let received = Buffer.alloc(0);
  server = tls.createServer({ cert: fs.readFileSync(identity.cert), key: fs.readFileSync(identity.key) }, (socket) => {
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.on('error', () => {});
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    messages: () => {
      const messages: string[] = [];
      for (let offset = 0; offset < received.length;) {
        const space = received.indexOf(0x20, offset);
        const length = Number(received.subarray(offset, space).toString('latin1'));
        messages.push(received.subarray(space + 1, space + 1 + length).toString('utf8'));
        offset = space + 1 + length;
      }
      return messages;
    },
  };
}

const ship = (config: SyslogSinkConfig): AuditShipper => {
  shipper = createAuditShipper({
    db,
    targets: () => [{ config, origin: 'settings' }],
    workerFile: builtAssets().auditShipWorker,
    sinkOptions: { connectTimeoutMs: 5000 },
    pollMs: 100,
    initialBackoffMs: 50,
    maxBackoffMs: 400,
  });
  shipper.start();
  return shipper;
};

describe.skipIf(!openssl)(title, { timeout: 60_000 }, () => {
  it('ships over TLS to a receiver whose certificate the configured CA signed', async () => {
    const identity = certificate('receiver');
    const receiver = await listen(identity);
    const running = ship({
      type: 'syslog',
      id: 'siem',
      enabled: true,
      host: '127.0.0.1',
      port: receiver.port,
      tls: { caFile: identity.cert, serverName: 'localhost' },
      facility: 13,
      batchSize: 10,
    });
    await waitFor('the sink to catch up', () => running.status().sinks[0]?.lagRows === 0);
    // Acknowledged means written to the socket: the receiver reads the last bytes a moment later.
    await waitFor('the receiver to read every row', () => receiver.messages().length >= 30);
    expect(receiver.messages().map((message) => parseReceivedLine(message)?.sequence)).toEqual(
      Array.from({ length: 30 }, (_, index) => index + 1),
    );
  });

  it('sends nothing to a receiver the CA did not sign, and says why', async () => {
    const trusted = certificate('trusted');
    const impostor = certificate('impostor');
    const receiver = await listen(impostor);
    const running = ship({
      type: 'syslog',
      id: 'siem',
      enabled: true,
      host: '127.0.0.1',
      port: receiver.port,
      tls: { caFile: trusted.cert, serverName: 'localhost' },
      facility: 13,
      batchSize: 10,
    });
    await waitFor('the refusal to show', () => (running.status().sinks[0]?.lastError ?? null) !== null);
    expect(running.status().sinks[0]).toMatchObject({
      acknowledgedSequence: 0,
      lagRows: 30,
      lastError: expect.stringMatching(/cannot connect to 127\.0\.0\.1:\d+: .*(self.signed|signature|verify)/i),
    });
    expect(receiver.messages()).toEqual([]);
  });
});
