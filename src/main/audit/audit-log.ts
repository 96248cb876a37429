import type { AuditActor, AuditDecision, AuditEntry } from '../../shared/audit';

/** A decision about one tool call, recorded before the tool runs (or instead of running it). */
export interface DecisionRecord {
  chatId: string;
  exchangeId?: string | undefined;
  toolCallId: string;
  serverName: string;
  toolName: string;
  definitionHash?: string | undefined;
  decision: AuditDecision;
  actor: AuditActor;
  /** The rule, setting or grant that decided, in words a person understands. */
  decidedBy: string;
  reason?: string | undefined;
  /** The arguments the model asked for; redacted before they are stored, hashed whole. */
  args: Record<string, unknown>;
  /** The arguments the person edited them to, when they did. */
  editedArgs?: Record<string, unknown> | undefined;
}

/** What became of a tool call that ran. */
export interface ToolResultRecord {
  chatId: string;
  exchangeId?: string | undefined;
  toolCallId: string;
  serverName: string;
  toolName: string;
  outcome: 'success' | 'error';
  durationMs: number;
  resultBytes: number;
  error?: string | undefined;
}

/**
 * The append-only, hash-chained audit log (ARCHITECTURE.md §6). Speaks in intents; no SQL crosses it.
 * Every method raises on failure; nothing is swallowed into an empty answer.
 */
export interface AuditLog {
  /** Appends a decision row and commits it durably before returning. */
  recordDecision(record: DecisionRecord): AuditEntry;
  /** Appends a result row and commits it durably before returning. */
  recordToolResult(record: ToolResultRecord): AuditEntry;
}
