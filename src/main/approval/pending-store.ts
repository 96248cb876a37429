import {
  ApprovalResolutionSchema,
  ToolCallRequestSchema,
  type ApprovalResolution,
  type PendingApproval,
  type ResolutionOutcome,
} from '../../shared/approval';
import type { Database } from '../storage/database';

interface PendingRow {
  chat_id: string;
  tool_call_id: string;
  exchange_id: string | null;
  request: string;
  created_at: number;
  expires_at: number | null;
  status: 'pending' | ResolutionOutcome;
  resolution: string | null;
}

/** A call as stored: still waiting, or how it was resolved. */
export interface StoredApproval {
  readonly approval: PendingApproval;
  readonly status: 'pending' | ResolutionOutcome;
  readonly resolution: ApprovalResolution | null;
}

const toApproval = (row: PendingRow): PendingApproval => ({
  chatId: row.chat_id,
  exchangeId: row.exchange_id,
  // Parsed, not cast: the row may have been written by another version of the app.
  request: ToolCallRequestSchema.parse(JSON.parse(row.request)),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** SQL for the calls that wait for a person; they survive a restart and go with their chat. */
export interface PendingStore {
  /** Throws when a call with the same id is already stored for the chat. */
  insert(approvals: readonly PendingApproval[]): void;
  get(chatId: string, toolCallId: string): StoredApproval | undefined;
  /** Whether any chat other than `chatId` holds a call with this id. */
  heldByAnotherChat(chatId: string, toolCallId: string): boolean;
  /** The chat's waiting calls, oldest first. */
  waiting(chatId: string): PendingApproval[];
  /** Every chat's waiting calls (to restore the timers after a restart). */
  allWaiting(): PendingApproval[];
  /** Marks a waiting call resolved; false when it was no longer waiting. */
  resolve(resolution: ApprovalResolution): boolean;
  transaction<T>(action: () => T): T;
}

export function createPendingStore(db: Database): PendingStore {
  const insert = db.prepare<[string, string, string | null, string, number, number | null]>(
    'INSERT INTO pending_approvals (chat_id, tool_call_id, exchange_id, request, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const get = db.prepare<[string, string], PendingRow>('SELECT * FROM pending_approvals WHERE chat_id = ? AND tool_call_id = ?');
  const elsewhere = db.prepare<[string, string], { found: number }>(
    'SELECT 1 AS found FROM pending_approvals WHERE tool_call_id = ? AND chat_id <> ? LIMIT 1',
  );
  const waiting = db.prepare<[string], PendingRow>("SELECT * FROM pending_approvals WHERE chat_id = ? AND status = 'pending' ORDER BY rowid");
  const allWaiting = db.prepare<[], PendingRow>("SELECT * FROM pending_approvals WHERE status = 'pending' ORDER BY rowid");
  const resolve = db.prepare<[string, string, string, string]>(
    "UPDATE pending_approvals SET status = ?, resolution = ? WHERE chat_id = ? AND tool_call_id = ? AND status = 'pending'",
  );
  const insertAll = db.transaction((approvals: readonly PendingApproval[]) => {
    for (const approval of approvals) {
      insert.run(
        approval.chatId,
        approval.request.toolCallId,
        approval.exchangeId,
        JSON.stringify(approval.request),
        approval.createdAt,
        approval.expiresAt,
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
    transaction: (action) => db.transaction(action).immediate(),
  };
}
