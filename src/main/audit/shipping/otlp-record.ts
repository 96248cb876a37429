import { SeverityNumber, type Attributes, type LogRecord } from '@opentelemetry/api';
import { canonicalRowOf, storedRowOf } from '../audit-row';
import { SHIPPED_FIELDS } from './shipped-fields';

/**
 * One audit row as an OpenTelemetry log record. The row's fields are attributes in the `workbench.audit.*`
 * namespace (snake_case, as OpenTelemetry's semantic conventions name attributes), plus the GenAI conventions'
 * `gen_ai.tool.name` and `gen_ai.tool.call.id` so generic dashboards find the tool; the body is the row's
 * canonical JSON (the line `audit export --format jsonl` writes), so a log store's copy can be verified
 * against the local chain. Rows are stored redacted (redact.ts); nothing here needs redacting again.
 */

export const OTLP_ATTRIBUTE_PREFIX = 'workbench.audit.';

/** The log record for one stored row (a `.raw()` array in `AUDIT_FIELDS` order). */
export function otlpLogRecord(values: readonly unknown[]): LogRecord {
  const row = storedRowOf(values);
  const attributes: Attributes = { 'gen_ai.tool.name': row.toolName, 'gen_ai.tool.call.id': row.toolCallId };
  for (const [name, field] of SHIPPED_FIELDS) {
    const value = row[field];
    if (value !== null && value !== undefined) attributes[`${OTLP_ATTRIBUTE_PREFIX}${name}`] = value as string | number;
  }
  // OpenTelemetry maps syslog's "notice" to INFO2 (log data model, appendix B): the same severities as the syslog sink.
  const notice =
    row.decision === 'deny' || row.decision === 'auto_deny' || row.outcome === 'error' || row.kind === 'policy';
  return {
    eventName: `workbench.audit.${row.kind}`,
    timestamp: Date.parse(row.time),
    severityNumber: notice ? SeverityNumber.INFO2 : SeverityNumber.INFO,
    severityText: notice ? 'NOTICE' : 'INFO',
    body: canonicalRowOf(values),
    attributes,
  };
}
