import type { AuditSinkStatus, AuditSinkView } from '../../../../shared/audit-shipping';

/** Where a sink sends: `host:port`, or the OTLP endpoint (the OTEL_EXPORTER_OTLP_* variables when none is set). */
export function sinkTarget(sink: AuditSinkView): string {
  if (sink.type === 'syslog') return `${sink.host}:${sink.port}`;
  return sink.endpoint ?? 'OTEL_EXPORTER_OTLP_ENDPOINT (from the environment)';
}

/** A sink's lag in words, and the badge that sums it up. */
export function describeLag(status: AuditSinkStatus): { badge: string; tone: 'good' | 'warn' | 'bad'; text: string } {
  const rows = `${status.lagRows.toLocaleString()} row${status.lagRows === 1 ? '' : 's'}`;
  const shipped = `${status.acknowledgedSequence.toLocaleString()} of ${status.headSequence.toLocaleString()} rows delivered`;
  if (status.lagRows === 0) return { badge: 'Up to date', tone: 'good', text: `Up to date — ${shipped}` };
  const text = `${rows} behind (${duration(status.lagSeconds)}) — ${shipped}`;
  return status.lastError ? { badge: 'Failing', tone: 'bad', text } : { badge: 'Behind', tone: 'warn', text };
}

/** `4 s`, `3 min`, `2 h 5 min`, `3 days`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.round((seconds % 3600) / 60);
    return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  }
  const days = Math.round(seconds / 86_400);
  return `${days} day${days === 1 ? '' : 's'}`;
}
