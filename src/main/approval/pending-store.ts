import {
  ApprovalResolutionSchema,
  ToolCallRequestSchema,
  type ApprovalResolution,
  type PendingApproval,
  type ResolutionOutcome,
} from '../../shared/approval';
import type { WaitingKind } from '../../shared/decisions';
import {
  HeldRequestViewSchema,
  WaitingServerRequestResolutionSchema,
  type HeldRequestView,
  type WaitingServerRequestResolution,
} from '../../shared/server-request-views';
import type { Database } from '../storage/database';

interface PendingRow {
  chat_id: string | null;
  request_id: string;
  kind: WaitingKind;
  exchange_id: string | null;
  request: string;
  created_at: number;
  expires_at: number | null;
  status: 'pending' | ResolutionOutcome;
  resolution: string | null;
  owner: string | null;
}

/** A call as stored: still waiting, or how it was resolved. */
export interface StoredApproval {
  readonly approval: PendingApproval;
  readonly status: 'pending' | ResolutionOutcome;
  readonly resolution: ApprovalResolution | null;
}

/** A server's request (or its view's tool call) as stored: still waiting, or how it was resolved. */
export interface StoredServerRequest {
  readonly request: HeldRequestView;
  readonly expiresAt: number | null;
  readonly status: 'pending' | ResolutionOutcome;
  readonly resolution: WaitingServerRequestResolution | null;
  /** The process that holds it open (its connection to the server). */
  readonly owner: string | null;
}

/** When a waiting request of any kind is due: what the one timer owner arms a timer for. */
export interface WaitingDeadline {
  readonly kind: WaitingKind;
  readonly chatId: string | null;
  readonly id: string;
  readonly expiresAt: number;
  /** For a server's request: the process that holds it. */
  readonly owner: string | null;
}

const toApproval = (row: PendingRow): PendingApproval => ({
  chatId: row.chat_id as string,
  exchangeId: row.exchange_id,
  // Parsed, not cast: the row may have been written by another version of the app.
  request: ToolCallRequestSchema.parse(JSON.parse(row.request)),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** A stored request never says who holds it: that is its row's `owner`, marked by the lister (server-request-waits.ts). */
const storedRequest = (json: string): HeldRequestView => {
  const { heldElsewhere: _listed, ...request } = HeldRequestViewSchema.parse(JSON.parse(json));
  return request as HeldRequestView;
};

const toServerRequest = (row: PendingRow): StoredServerRequest => ({
  request: storedRequest(row.request),
  expiresAt: row.expires_at,
  status: row.status,
  resolution: row.resolution === null ? null : WaitingServerRequestResolutionSchema.parse(JSON.parse(row.resolution)),
  owner: row.owner,
});

/**
 * A sampling request waits twice under one id (the request, then the model's answer): each stage is its own row, so
 * each is claimed once.
 */
const rowIdOf = (request: HeldRequestView): string =>
  request.kind === 'sampling' && request.stage === 'answer' ? `${request.id}${ANSWER_STAGE}` : request.id;
const ANSWER_STAGE = '#answer';

/**
 * SQL for the ONE store of everything that waits on a person (docs/dev/architecture.md "One engine"): the model's tool
 * calls, a server's sampling and elicitation requests and the tool calls its MCP Apps view asks for, each row with its
 * `kind`. Rows survive a restart and go with
 * their chat; a resolved row stays, so a second answer is refused by name.
 */
export interface PendingStore {
  /** Throws when a call with the same id is already stored for the chat. */
  insert(approvals: readonly PendingApproval[]): void;
  get(chatId: string, toolCallId: string): StoredApproval | undefined;
  /** Whether any chat other than `chatId` holds a call with this id. */
  heldByAnotherChat(chatId: string, toolCallId: string): boolean;
  /** The chat's waiting calls, oldest first. */
  waiting(chatId: string): PendingApproval[];
  /** Every chat's waiting calls, oldest first. */
  allWaiting(): PendingApproval[];
  /** Marks a waiting call resolved; false when it was no longer waiting. */
  resolve(resolution: ApprovalResolution): boolean;
  /**
   * Keeps a server's request (sampling or elicitation, each stage, or its view's tool call) waiting, held by `owner`;
   * throws when it was kept before.
   */
  insertServerRequest(request: HeldRequestView, expiresAt: number | null, owner: string): void;
  /** The request by this id: its latest stage. */
  getServerRequest(id: string): StoredServerRequest | undefined;
  /** The server requests that wait, oldest first. */
  waitingServerRequests(): StoredServerRequest[];
  /** Marks the waiting stage of a server request resolved; false when none was waiting. */
  resolveServerRequest(id: string, resolution: WaitingServerRequestResolution): boolean;
  /** Every waiting request's deadline, of every kind (to arm the timers, at a start too). */
  deadlines(): WaitingDeadline[];
  transaction<T>(action: () => T): T;
}

const SERVER_REQUEST = "kind IN ('sampling', 'elicitation', 'app-tool-call')";

export function createPendingStore(db: Database): PendingStore {
  const insert = db.prepare<
    [string | null, string, WaitingKind, string | null, string, number, number | null, string | null]
  >(
    'INSERT INTO pending_requests (chat_id, request_id, kind, exchange_id, request, created_at, expires_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const get = db.prepare<[string, string], PendingRow>(
    "SELECT * FROM pending_requests WHERE chat_id = ? AND request_id = ? AND kind = 'tool-call'",
  );
  const elsewhere = db.prepare<[string, string], { found: number }>(
    "SELECT 1 AS found FROM pending_requests WHERE request_id = ? AND kind = 'tool-call' AND chat_id <> ? LIMIT 1",
  );
  const waiting = db.prepare<[string], PendingRow>(
    "SELECT * FROM pending_requests WHERE chat_id = ? AND status = 'pending' AND kind = 'tool-call' ORDER BY rowid",
  );
  const allWaiting = db.prepare<[], PendingRow>(
    "SELECT * FROM pending_requests WHERE status = 'pending' AND kind = 'tool-call' ORDER BY rowid",
  );
  const resolve = db.prepare<[string, string, string, string]>(
    "UPDATE pending_requests SET status = ?, resolution = ? WHERE chat_id = ? AND request_id = ? AND kind = 'tool-call' AND status = 'pending'",
  );
  const getRequest = db.prepare<[string, string], PendingRow>(
    `SELECT * FROM pending_requests WHERE request_id IN (?, ?) AND ${SERVER_REQUEST} ORDER BY rowid DESC LIMIT 1`,
  );
  const waitingRequests = db.prepare<[], PendingRow>(
    `SELECT * FROM pending_requests WHERE status = 'pending' AND ${SERVER_REQUEST} ORDER BY rowid`,
  );
  const resolveRequest = db.prepare<[string, string, string, string]>(
    `UPDATE pending_requests SET status = ?, resolution = ? WHERE request_id IN (?, ?) AND ${SERVER_REQUEST} AND status = 'pending'`,
  );
  const deadlines = db.prepare<
    [],
    { kind: WaitingKind; chat_id: string | null; request_id: string; expires_at: number; owner: string | null }
  >(
    "SELECT kind, chat_id, request_id, expires_at, owner FROM pending_requests WHERE status = 'pending' AND expires_at IS NOT NULL ORDER BY rowid",
  );
  const insertAll = db.transaction((approvals: readonly PendingApproval[]) => {
    for (const approval of approvals) {
      insert.run(
        approval.chatId,
        approval.request.toolCallId,
        'tool-call',
        approval.exchangeId,
        JSON.stringify(approval.request),
        approval.createdAt,
        approval.expiresAt,
        null,
      );
    }
  });
  return {
    insert: (approvals) => insertAll.immediate(approvals),
    get(chatId, toolCallId) {
      const row = get.get(chatId, toolCallId);
      if (!row) return undefined;
      return {
        approval: toApproval(row),
        status: row.status,
        resolution: row.resolution === null ? null : ApprovalResolutionSchema.parse(JSON.parse(row.resolution)),
      };
    },
    heldByAnotherChat: (chatId, toolCallId) => elsewhere.get(toolCallId, chatId) !== undefined,
    waiting: (chatId) => waiting.all(chatId).map(toApproval),
    allWaiting: () => allWaiting.all().map(toApproval),
    resolve: (resolution) =>
      resolve.run(resolution.outcome, JSON.stringify(resolution), resolution.chatId, resolution.toolCallId).changes > 0,
    insertServerRequest(request, expiresAt, owner) {
      insert.run(
        request.chatId,
        rowIdOf(request),
        request.kind,
        null,
        JSON.stringify(request),
        request.createdAt,
        expiresAt,
        owner,
      );
    },
    getServerRequest(id) {
      const row = getRequest.get(id, `${id}${ANSWER_STAGE}`);
      return row && toServerRequest(row);
    },
    waitingServerRequests: () => waitingRequests.all().map(toServerRequest),
    resolveServerRequest: (id, resolution) =>
      resolveRequest.run(resolution.outcome, JSON.stringify(resolution), id, `${id}${ANSWER_STAGE}`).changes > 0,
    deadlines: () =>
      deadlines.all().map((row) => ({
        kind: row.kind,
        chatId: row.chat_id,
        id: row.kind === 'tool-call' ? row.request_id : row.request_id.replace(/#answer$/, ''),
        expiresAt: row.expires_at,
        owner: row.owner,
      })),
    transaction: (action) => db.transaction(action).immediate(),
  };
}
