// The wiring: the auditShipping settings section, a commit waking the shipper, and audit.shippingStatus over the
// contract. The receiver here is a plain TCP socket (the rsyslog tests cover a real one).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditShippingSettingsSchema, type AuditShippingStatus } from '../../shared/audit-shipping';
import type { Envelope } from '../../shared/errors';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';
import { createServices, type Services } from '../services';
import { SettingsError } from '../settings/settings-store';
import { decisionRecord } from '../audit/audit-test-support';
import { parseReceivedLine } from '../audit/shipping/received-rows';
import { startOtlpReceiver } from '../audit/shipping/testing/otlp-receiver';
import { waitFor } from '../audit/shipping/testing/shipping-fixture';

let dir: string;
let services: Services | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-ship-services-'));
});

afterEach(async () => {
  await services?.auditShipping.stop();
  services?.close();
  services = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const writeSettings = (auditShipping: unknown): void => {
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data', 'settings.json'), JSON.stringify({ version: 2, auditShipping }));
};

const open = (): Services => {
  services = createServices({
    dataDir: path.join(dir, 'data'),
    host: 'browser',
    version: '0.0.0',
    managedPolicyFile: null,
  });
  return services;
};

const status = async (of: Services): Promise<AuditShippingStatus> => {
  const envelope: Envelope = await createDispatcher(createHandlers(of), () => {})('audit.shippingStatus', undefined);
  if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  return envelope.value as AuditShippingStatus;
};

/** A TCP receiver that keeps every byte; octet-counted frames are split by the test. */
async function listen(): Promise<{ port: number; messages: () => string[]; close: () => Promise<void> }> {
  let received = Buffer.alloc(0);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => (received = Buffer.concat([received, chunk])));
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    messages: () => {
      const messages: string[] = [];
      let offset = 0;
      while (offset < received.length) {
        const space = received.indexOf(0x20, offset);
        const length = Number(received.subarray(offset, space).toString('ascii'));
        messages.push(received.subarray(space + 1, space + 1 + length).toString('utf8'));
        offset = space + 1 + length;
      }
      return messages;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('auditShipping settings', () => {
  it('default to no sinks, and name the field of a bad sink (the start stops, the file is left as it is)', () => {
    expect(AuditShippingSettingsSchema.parse({})).toEqual({
      sinks: [],
      checkpoints: { enabled: false, everyRows: 1000, everyMinutes: 60 },
    });
    const sink = { type: 'syslog', id: 'siem', host: 'logs.example.org', port: 6514, tls: {} };
    expect(AuditShippingSettingsSchema.parse({ sinks: [sink] }).sinks[0]).toMatchObject({
      enabled: true,
      facility: 13,
      batchSize: 500,
    });
    expect(AuditShippingSettingsSchema.safeParse({ sinks: [sink, sink] }).error?.issues[0]?.message).toBe(
      'every sink needs its own id',
    );
    writeSettings({ sinks: [{ ...sink, port: 70000 }] });
    expect(open).toThrow(SettingsError);
    expect(open).toThrow(/auditShipping\.sinks\.0\.port/);
  });
});

describe('audit shipping in the services', () => {
  it('a commit wakes the shipper, which ships the row; audit.shippingStatus shows the lag and the last error', async () => {
    const receiver = await listen();
    writeSettings({
      sinks: [
        { type: 'syslog', id: 'siem', host: '127.0.0.1', port: receiver.port },
        { type: 'syslog', id: 'off', enabled: false, host: '127.0.0.1', port: 1 },
      ],
    });
    const app = open();
    app.audit.recordDecision(decisionRecord(1));
    // Built stopped: nothing ships before the host starts it, and the row shows as lag.
    expect((await status(app)).sinks).toEqual([
      expect.objectContaining({
        id: 'siem',
        type: 'syslog',
        origin: 'settings',
        enabled: true,
        acknowledgedSequence: 0,
        headSequence: 1,
        lagRows: 1,
        lastError: null,
      }),
      expect.objectContaining({ id: 'off', enabled: false, lagRows: 1 }),
    ]);
    app.auditShipping.start();
    await waitFor('the first row to arrive', () => receiver.messages().length === 1);
    app.audit.recordDecision(decisionRecord(2));
    await waitFor('the second row to arrive', () => receiver.messages().length === 2);
    expect(receiver.messages().map((message) => parseReceivedLine(message)?.sequence)).toEqual([1, 2]);
    await waitFor('the cursor to move', () => app.auditShipping.status().sinks[0]?.lagRows === 0);
    expect((await status(app)).sinks[0]).toMatchObject({ acknowledgedSequence: 2, lagRows: 0, lagSeconds: 0 });

    // The receiver goes away: the next rows wait, and the status says why.
    await receiver.close();
    app.audit.recordDecision(decisionRecord(3));
    await waitFor('the failure to show', () => app.auditShipping.status().sinks[0]?.lastError !== null);
    const failing = (await status(app)).sinks[0];
    expect(failing).toMatchObject({ headSequence: 3, lastError: expect.stringMatching(/127\.0\.0\.1/) });
    expect(failing?.lagRows).toBeGreaterThanOrEqual(1);
  });

  it('an OTLP sink from the settings ships through the OpenTelemetry SDK, loaded only when it first ships', async () => {
    const receiver = await startOtlpReceiver();
    try {
      writeSettings({ sinks: [{ type: 'otlp', id: 'otel', endpoint: receiver.url }] });
      const app = open();
      app.auditShipping.start();
      app.audit.recordDecision(decisionRecord(1));
      app.audit.recordDecision(decisionRecord(2));
      await waitFor('the rows to arrive', () => receiver.accepted.flatMap((request) => request.records).length === 2);
      expect(
        receiver.accepted
          .flatMap((request) => request.records)
          .map((record) => record.attributes['workbench.audit.sequence']),
      ).toEqual([1, 2]);
      await waitFor('the cursor to move', () => app.auditShipping.status().sinks[0]?.lagRows === 0);
      expect((await status(app)).sinks).toEqual([
        expect.objectContaining({ id: 'otel', type: 'otlp', acknowledgedSequence: 2, lastError: null }),
      ]);
    } finally {
      await services?.auditShipping.stop();
      await receiver.close();
    }
  });
});
