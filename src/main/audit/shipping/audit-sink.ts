import type { OtlpSinkConfig, SyslogSinkConfig } from '../../../shared/audit-shipping';

/** A sink's settings with what the secret store adds (an OTLP sink's header values): main process only. */
export type ShippedSinkConfig = SyslogSinkConfig | (OtlpSinkConfig & { headers?: Record<string, string> });

/** How shipped audit rows name their source: syslog's APP-NAME, OpenTelemetry's `service.name`. */
export const AUDIT_SOURCE_NAME = 'ai-workbench';

/** A stored audit row as `.raw()` returns it: values in `AUDIT_FIELDS` order (audit-row.ts). */
export type RawAuditRow = readonly unknown[];

/**
 * Where audit rows are shipped to: one transport to one receiver. The shipper (audit-shipper.ts) owns the
 * order, the cursor and the retries; a sink only delivers one batch at a time and says when it could not.
 */
export interface AuditSink {
  /**
   * Delivers the rows, in order, and resolves once the transport acknowledged them as far as it can
   * (see each sink). Rejects when any of them may not have arrived: the whole batch is then sent again.
   */
  send(rows: readonly RawAuditRow[]): Promise<void>;
  /**
   * For transports without an acknowledgement of their own (syslog over TCP): the connection broke, so
   * what was written shortly before may not have reached the receiver. The shipper then sends again what
   * it sent within its resend window.
   */
  onDidBreak(listener: (reason: string) => void): () => void;
  /** Closes the connection; pending sends reject. */
  close(): Promise<void>;
}

/** Rows read or formatted between two turns of the event loop: shipping never holds up a tool call for long. */
export const SLICE_ROWS = 100;

/** Lets timers and I/O (the tool calls' own work) run before shipping goes on. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
