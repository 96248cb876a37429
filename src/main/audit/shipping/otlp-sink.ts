import os from 'node:os';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, type LogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { OtlpSinkConfig } from '../../../shared/audit-shipping';
import { AUDIT_SOURCE_NAME, type AuditSink, type RawAuditRow } from './audit-sink';
import { otlpLogRecord } from './otlp-record';

export interface OtlpSinkOptions {
  config: Pick<OtlpSinkConfig, 'endpoint'> & { headers?: Record<string, string> };
  /** The app's version, for the resource's `service.version`. */
  version: string;
  /** Where the standard `OTEL_EXPORTER_OTLP_*` variables are read (the SDK reads process.env itself). */
  env?: NodeJS.ProcessEnv;
}

/**
 * OpenTelemetry logs over OTLP/HTTP with protobuf, through the official SDK (`@opentelemetry/sdk-logs` and
 * `@opentelemetry/exporter-logs-otlp-proto`). Endpoint, headers, timeout and TLS come from the standard
 * `OTEL_EXPORTER_OTLP_*` variables, which the SDK reads, unless the settings give an endpoint.
 *
 * The SDK's batch processor exports in the background and never says whether a record arrived; here each
 * batch of rows is emitted through a logger into a processor that only collects them, and handed to the
 * exporter directly: `send` resolves only when the export's result is SUCCESS (the collector answered 2xx).
 */
export function createOtlpSink({ config, version, env = process.env }: OtlpSinkOptions): AuditSink {
  const protocol = env.OTEL_EXPORTER_OTLP_LOGS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  const unsupported = protocol !== undefined && protocol !== '' && protocol !== 'http/protobuf' ? protocol : null;
  // Headers set in the settings page (values from the secret store) join those of OTEL_EXPORTER_OTLP_HEADERS.
  const exporter = new OTLPLogExporter({
    ...(config.endpoint === undefined ? {} : { url: config.endpoint }),
    ...(config.headers === undefined || Object.keys(config.headers).length === 0 ? {} : { headers: config.headers }),
  });
  let emitted: ReadableLogRecord[] = [];
  const collect: LogRecordProcessor = {
    onEmit: (record) => {
      emitted.push(record);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({
      'service.name': AUDIT_SOURCE_NAME,
      'service.version': version,
      'host.name': os.hostname(),
    }),
    processors: [collect],
    // Attributes are never cut or dropped: a row's fields are what a verifier compares.
    logRecordLimits: { attributeCountLimit: 64, attributeValueLengthLimit: Infinity },
  });
  const logger = provider.getLogger('ai-workbench.audit', version);
  let closed = false;

  return {
    async send(rows: readonly RawAuditRow[]) {
      if (closed) throw new Error('the sink is closed');
      if (unsupported !== null) {
        throw new Error(
          `OTEL_EXPORTER_OTLP_PROTOCOL is ${JSON.stringify(unsupported)}; AI Workbench ships audit logs over http/protobuf only`,
        );
      }
      emitted = [];
      for (const row of rows) logger.emit(otlpLogRecord(row));
      const records = emitted;
      emitted = [];
      const result = await new Promise<ExportResult>((resolve) => exporter.export(records, resolve));
      if (result.code !== ExportResultCode.SUCCESS) {
        throw new Error(`the OTLP export failed: ${result.error?.message ?? 'no reason given'}`, {
          cause: result.error,
        });
      }
    },
    // Every export is answered by the collector: nothing is sent without an answer, so nothing needs resending.
    onDidBreak: () => () => {},
    async close() {
      closed = true;
      await provider.shutdown();
      await exporter.shutdown();
    },
  };
}
