import type { AuditSink, ShippedSinkConfig } from './audit-sink';
import { createSyslogSink } from './syslog-sink';

export interface AuditSinkOptions {
  /** The app's version, which OpenTelemetry records as `service.version`. */
  version: string;
  /** Syslog: how long a connection may take, and the HOSTNAME field (the machine's name when absent). */
  connectTimeoutMs?: number;
  hostname?: string;
}

/** The sink a configuration names. */
export function createAuditSink(
  config: ShippedSinkConfig,
  { version, connectTimeoutMs, hostname }: AuditSinkOptions,
): AuditSink {
  switch (config.type) {
    case 'syslog':
      return createSyslogSink({ config, connectTimeoutMs, hostname });
    case 'otlp':
      return lazyOtlpSink(config, version);
  }
}

/**
 * The OpenTelemetry SDK takes about 0.3 s to load here: it loads when an OTLP sink first ships, never when
 * the app, browser mode or a CLI command starts without one.
 */
function lazyOtlpSink(config: Extract<ShippedSinkConfig, { type: 'otlp' }>, version: string): AuditSink {
  let sink: Promise<AuditSink> | null = null;
  const load = (): Promise<AuditSink> =>
    (sink ??= import('./otlp-sink').then(({ createOtlpSink }) => createOtlpSink({ config, version })));
  return {
    send: async (rows) => (await load()).send(rows),
    onDidBreak: () => () => {},
    close: async () => {
      if (sink) await (await sink).close();
    },
  };
}
