import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import type { SyslogSinkConfig } from '../../../shared/audit-shipping';
import { nextTurn, SLICE_ROWS, type AuditSink, type RawAuditRow } from './audit-sink';
import { syslogFrames, type SyslogIdentity } from './syslog-message';

export interface SyslogSinkOptions {
  config: Pick<SyslogSinkConfig, 'host' | 'port' | 'tls' | 'facility'>;
  /** How long a connection may take before the attempt counts as failed. */
  connectTimeoutMs?: number;
  hostname?: string;
}

/**
 * Syslog over TCP (RFC 6587 octet counting), or over TLS (RFC 5425). The protocol has no acknowledgement:
 * `send` resolves once the batch is written and the socket's write callback fired, i.e. the kernel took
 * every byte on a connection that is still open. A receiver that dies can still lose what sat in the
 * buffers between us; that is what `onDidBreak` (and the shipper's resend window) is for.
 */
export function createSyslogSink({
  config,
  connectTimeoutMs = 10_000,
  hostname = os.hostname(),
}: SyslogSinkOptions): AuditSink {
  const identity: SyslogIdentity = { facility: config.facility, hostname, procId: String(process.pid) };
  const listeners = new Set<(reason: string) => void>();
  let socket: net.Socket | null = null;
  let connecting: Promise<net.Socket> | null = null;
  let closed = false;

  const broke = (which: net.Socket, reason: string): void => {
    if (socket !== which) return;
    socket = null;
    which.destroy();
    for (const listener of [...listeners]) listener(reason);
  };

  const connect = (): Promise<net.Socket> => {
    connecting ??= new Promise<net.Socket>((resolve, reject) => {
      const options = { host: config.host, port: config.port };
      const opened = config.tls
        ? tls.connect({
            ...options,
            servername: config.tls.serverName ?? (net.isIP(config.host) ? undefined : config.host),
            ca: config.tls.caFile === undefined ? undefined : fs.readFileSync(config.tls.caFile),
            cert: config.tls.certFile === undefined ? undefined : fs.readFileSync(config.tls.certFile),
            key: config.tls.keyFile === undefined ? undefined : fs.readFileSync(config.tls.keyFile),
          })
        : net.connect(options);
      const timer = setTimeout(() => {
        opened.destroy();
        reject(new Error(`no connection to ${config.host}:${config.port} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        opened.destroy();
        reject(new Error(`cannot connect to ${config.host}:${config.port}: ${error.message}`, { cause: error }));
      };
      opened.once('error', failed);
      opened.once(config.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        opened.off('error', failed);
        opened.setKeepAlive(true, 30_000);
        // A syslog receiver never talks back: reading only lets us see its FIN or RST as soon as it comes.
        opened.on('data', () => {});
        opened.on('end', () => broke(opened, 'the receiver closed the connection'));
        opened.on('error', (error) => broke(opened, error.message));
        opened.on('close', () => broke(opened, 'the connection closed'));
        if (closed) {
          opened.destroy();
          reject(new Error('the sink is closed'));
          return;
        }
        socket = opened;
        resolve(opened);
      });
    }).finally(() => {
      connecting = null;
    });
    return connecting;
  };

  return {
    async send(rows: readonly RawAuditRow[]) {
      if (closed) throw new Error('the sink is closed');
      // Formatted in slices, with a turn of the event loop between them (audit-sink.ts `nextTurn`).
      const parts: Buffer[] = [];
      for (let start = 0; start < rows.length; start += SLICE_ROWS) {
        if (start > 0) await nextTurn();
        parts.push(syslogFrames(rows.slice(start, start + SLICE_ROWS), identity));
      }
      const bytes = Buffer.concat(parts);
      const target = socket ?? (await connect());
      await new Promise<void>((resolve, reject) => {
        const onBreak = (reason: string): void => reject(new Error(`the connection broke while sending: ${reason}`));
        listeners.add(onBreak);
        target.write(bytes, (error) => {
          listeners.delete(onBreak);
          if (error)
            reject(new Error(`cannot write to ${config.host}:${config.port}: ${error.message}`, { cause: error }));
          else if (socket !== target)
            reject(new Error(`the connection to ${config.host}:${config.port} broke while sending`));
          else resolve();
        });
      });
    },
    onDidBreak(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      const open = socket;
      socket = null;
      if (!open) return;
      // end() flushes what is written and sends FIN; the receiver then has it all.
      await new Promise<void>((resolve) => {
        open.once('close', () => resolve());
        open.end();
        setTimeout(() => {
          open.destroy();
          resolve();
        }, 2000).unref();
      });
    },
  };
}
