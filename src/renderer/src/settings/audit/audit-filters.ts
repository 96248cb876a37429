import type { AuditActor, AuditDecision, AuditEntry, AuditKind, AuditQueryInput } from '../../../../shared/audit';
import type { CALL_REQUESTERS } from '../../../../shared/closed-sets';

/** Who asked for a tool call: the model, or an MCP App's view (docs/user/audit-log.md, "Requested by"). */
export type CallRequester = (typeof CALL_REQUESTERS)[number];

/** The filter bar's values, as the inputs hold them (`from`/`to` in the `datetime-local` format). */
export interface AuditFilters {
  from: string;
  to: string;
  chatId: string;
  serverName: string;
  toolName: string;
  decision: AuditDecision | '';
  actor: AuditActor | '';
  kind: AuditKind | '';
  requestedBy: CallRequester | '';
  /** Set only from an Insights chart: several decisions at once, and the rule or setting that decided. */
  decisions?: readonly AuditDecision[];
  decidedBy?: string;
}

export const EMPTY_FILTERS: AuditFilters = {
  from: '',
  to: '',
  chatId: '',
  serverName: '',
  toolName: '',
  decision: '',
  actor: '',
  kind: '',
  requestedBy: '',
};

export const DECISION_LABELS: Readonly<Record<AuditDecision, string>> = {
  allow_once: 'Allowed once',
  allow_session: 'Allowed for chat',
  deny: 'Denied',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  auto_allow: 'Auto-allowed',
  auto_deny: 'Auto-denied',
  session_grant: 'Chat grant',
};

export const KIND_LABELS: Readonly<Record<AuditKind, string>> = {
  decision: 'Decision',
  result: 'Result',
  sampling: 'Sampling',
  elicitation: 'Elicitation',
  policy: 'Policy change',
  checkpoint: 'Signed checkpoint',
  task: 'Task',
};

export const REQUESTED_BY_LABELS: Readonly<Record<CallRequester, string>> = {
  model: 'The model',
  app: "An app's view",
  server: 'A server (sampling, elicitation)',
};

export const ACTOR_LABELS: Readonly<Record<AuditActor, string>> = {
  user: 'You',
  policy: 'Policy',
  system: 'System',
  cli: 'You (CLI)',
  managed: 'Organisation',
};

/** The tone of a decision's badge: allowed, denied, or neither. */
export function decisionTone(decision: AuditDecision): 'good' | 'bad' | 'off' {
  if (decision === 'deny' || decision === 'auto_deny') return 'bad';
  if (decision === 'timeout' || decision === 'cancelled') return 'off';
  return 'good';
}

/** A `datetime-local` value (the person's local time) as an ISO instant; `null` when it is not a time. */
export function localToIso(value: string): string | null {
  if (!value) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/**
 * The `audit.query` input for the filters and a page cursor; empty fields are left out. A `to` before
 * `from` is reported here, so the person reads it next to the fields rather than as a refused call.
 */
export function toAuditQuery(
  filters: AuditFilters,
  cursor: string | null,
  limit: number,
): { query: NonNullable<AuditQueryInput> } | { problem: string } {
  const from = localToIso(filters.from);
  const to = localToIso(filters.to);
  if (from && to && Date.parse(from) > Date.parse(to)) return { problem: '“From” must not be after “To”.' };
  const text = (value: string): string | undefined => value.trim() || undefined;
  const query: NonNullable<AuditQueryInput> = {
    limit,
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(text(filters.chatId) ? { chatId: text(filters.chatId) } : {}),
    ...(text(filters.serverName) ? { serverName: text(filters.serverName) } : {}),
    ...(text(filters.toolName) ? { toolName: text(filters.toolName) } : {}),
    ...(filters.decision
      ? { decision: filters.decision }
      : filters.decisions && filters.decisions.length > 0
        ? { decision: [...filters.decisions] }
        : {}),
    ...(filters.decidedBy ? { decidedBy: filters.decidedBy } : {}),
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.requestedBy ? { requestedBy: filters.requestedBy } : {}),
    ...(cursor ? { cursor } : {}),
  };
  return { query };
}

/** What a row says in the table's "what happened" column. */
export function rowSummary(entry: AuditEntry): string {
  if (entry.kind === 'policy') return entry.decidedBy ?? '';
  if (entry.kind === 'result') {
    const duration = entry.durationMs === null ? '' : ` in ${Math.round(entry.durationMs)} ms`;
    return entry.outcome === 'error'
      ? `Failed${duration}${entry.error ? `: ${entry.error}` : ''}`
      : `Succeeded${duration}`;
  }
  return entry.reason ? `${entry.decidedBy ?? ''} — “${entry.reason}”` : (entry.decidedBy ?? '');
}
