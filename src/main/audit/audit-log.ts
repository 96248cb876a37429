import type { KeyObject } from 'node:crypto';
import type {
  AuditActor,
  AuditDecision,
  AuditEntry,
  AuditExportFormat,
  AuditExportResult,
  AuditHead,
  AuditPage,
  AuditQuery,
  AuditVerifyResult,
} from '../../shared/audit';
import type { Requester } from './requested-by';

/** Which tool call a row is about: the fields every audit row carries. */
export interface AuditedCall {
  chatId: string;
  exchangeId?: string | undefined;
  toolCallId: string;
  serverName: string;
  toolName: string;
  definitionHash?: string | undefined;
  /**
   * Who asked for the call (docs/user/audit-log.md#requested-by): `app` for an MCP App's view, `server` for a server's
   * request. Absent: `app` for a call id that starts with `app:`, `server` for a server's request, else `model`.
   */
  requestedBy?: Requester | undefined;
}

/** A decision about one tool call, recorded before the tool runs (or instead of running it). */
export interface DecisionRecord extends AuditedCall {
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
export interface ToolResultRecord extends AuditedCall {
  outcome: 'success' | 'error';
  durationMs: number;
  resultBytes: number;
  error?: string | undefined;
}

/**
 * What became of a tool call made as an MCP task (docs/user/audit-log.md#task-rows): the task was created, the person
 * asked it to stop, or it ended (completed, failed or cancelled). The call's decision and result rows are written as
 * for any call; these rows say what happened between them.
 */
export interface TaskRecord extends AuditedCall {
  event: 'started' | 'cancel-requested' | 'ended';
  /** The task's id on its server. */
  taskId: string;
  /** The task's status when this happened (`working`, `completed`…). */
  status: string;
  statusMessage?: string | undefined;
  /** `user` for a cancel the person asked for; `system` otherwise. */
  actor: 'user' | 'system';
}

/** Who changed the policy: a person in the app or browser mode, a person at the CLI, or the organisation's file. */
export type PolicyChangeActor = 'user' | 'cli' | 'managed';

/**
 * A change of the approval policy (docs/user/audit-log.md, policy rows): its rules, modes, server and tool settings, server
 * trust, a chat's mode, a grant or its revocation, or the organisation's policy file. `before` and `after` hold only what
 * changed, keyed by the same names (`mode`, `rules/<id>`, `tools/<server>/<tool>`…); both are stored redacted, hashed whole.
 */
export interface PolicyChangeRecord {
  actor: PolicyChangeActor;
  /** What changed, in words a person understands ("Global mode: ask → never-ask"). */
  summary: string;
  /** The chat a chat mode, grant or revocation belongs to. */
  chatId?: string | undefined;
  serverName?: string | undefined;
  toolName?: string | undefined;
  /** A grant's tool definition. */
  definitionHash?: string | undefined;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/**
 * The append-only, hash-chained audit log (docs/user/audit-log.md). Speaks in intents; no SQL crosses it.
 * Every method raises on failure; nothing is swallowed into an empty answer.
 */
export interface AuditRecorder {
  /**
   * Appends a decision row and commits it durably (`synchronous=FULL`) before returning. Arguments are
   * stored redacted and hashed whole. Raises when called inside another transaction on the same
   * connection, because the row would not be committed when the call returns.
   */
  recordDecision(record: DecisionRecord): AuditEntry;
  /**
   * Runs `claim` (a change on the same database: the calls a decision resolves) and appends `records` in ONE durable
   * transaction: either the claim and its decision rows commit together, or neither does. A claim that throws (the call
   * was resolved meanwhile) leaves no row for a decision that never applied (docs/dev/architecture.md, the approval round trip).
   * `changes` (the grants an "Allow for this chat" makes) are appended after the decision rows, in the same transaction.
   * A record with a `kind` (a `ServerRequestRecord`) is a row about a server's request.
   */
  recordDecisionsWith<T>(
    records: readonly (DecisionRecord | ServerRequestRecord)[],
    claim: () => T,
    changes?: readonly PolicyChangeRecord[],
  ): T;
  /**
   * Appends a `policy` row and commits it durably before returning: the policy service records a change before it
   * applies it, so no change goes unrecorded (a change the log cannot record is refused). Called inside the claim of
   * `recordDecisionsWith` (a change an answer makes), the row is part of that one transaction instead.
   */
  recordPolicyChange(record: PolicyChangeRecord): AuditEntry;
  /** Appends a result row and commits it durably before returning. */
  recordToolResult(record: ToolResultRecord): AuditEntry;
  /** Appends a task row and commits it durably before returning. */
  recordTask(record: TaskRecord): AuditEntry;
}

/**
 * A decision about a server's request of the model or the person (sampling, elicitation). `toolCallId` is the
 * request's id, `toolName` what was decided (`sampling/createMessage`, `sampling/answer`, `elicitation/create`),
 * `args` the request (or the answer) and `editedArgs` the person's edit, redacted like a tool call's arguments.
 * `chatId` is `SERVER_REQUEST_NO_CHAT` when no chat made the request.
 */
export interface ServerRequestRecord extends DecisionRecord {
  kind: 'sampling' | 'elicitation';
}

/** The chat id of a server request's rows when no chat was running a tool of that server. */
export const SERVER_REQUEST_NO_CHAT = '-';

export interface ServerRequestRecorder {
  /** Appends the row and commits it durably before returning, before the decision applies. */
  recordServerRequest(record: ServerRequestRecord): AuditEntry;
}

/** The whole audit log: recording, and reading it back (query, export, verify). */
export interface AuditLog extends AuditRecorder, ServerRequestRecorder {
  /** One page of rows, newest first, matching every filter given. */
  query(query?: AuditQuery): AuditPage;
  /**
   * Writes the whole log to `path` in constant memory, behind a header that records the chain head and
   * the row count. The file appears complete or not at all. Refuses relative paths, paths in the data
   * folder, an extension other than the format's, and an existing file unless `overwrite`.
   */
  export(request: AuditExportRequest): Promise<AuditExportResult>;
  /** Recomputes the whole chain and reports the first broken row; never changes the log. */
  verify(request?: AuditVerifyRequest): Promise<AuditVerifyResult>;
  /** The last row's sequence and hash (sequence 0 and the genesis hash when the log is empty). */
  head(): AuditHead;
  /**
   * Puts back the log's protections (append-only triggers, the count of rows ever written) when they are
   * missing or altered, and records that; done when the log is opened, and by the host when it closes (audit-guard.ts).
   */
  checkProtections(): void;
}

/** Called now and then during a long export or verification. */
export type AuditProgressListener = (done: number, total: number) => void;

export interface AuditExportRequest {
  format: AuditExportFormat;
  path: string;
  overwrite?: boolean | undefined;
  onProgress?: AuditProgressListener | undefined;
}

export interface AuditVerifyRequest {
  /** A row trusted from elsewhere (an earlier export's header): the log must still hold it, unchanged. */
  anchor?: AuditHead | undefined;
  onProgress?: AuditProgressListener | undefined;
  /**
   * The Ed25519 public key signed checkpoints are checked against (checkpoint.ts); the log's own key when
   * absent. With neither, checkpoint rows are checked as chain links only.
   */
  checkpointKey?: KeyObject | undefined;
}
