import { randomUUID } from 'node:crypto';
import { ChatMessageSchema, type ChatMessage } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import type { Database } from '../storage/database';

interface MessageRow {
  body: string;
}

/** A message before the store gives it its place: everything but `id`, `seq` and `createdAt`. */
export type NewMessage = ChatMessage extends infer M
  ? M extends ChatMessage
    ? Omit<M, 'id' | 'seq' | 'createdAt'>
    : never
  : never;

/** SQL for chat_messages: append in order, replace one whole, read back (all, a page, an exchange). */
export interface MessageStore {
  /** Appends at the end of the chat, in one statement: the next `seq` is taken atomically (two processes may write). */
  append<M extends NewMessage>(message: M, createdAt: number): M & Pick<ChatMessage, 'id' | 'seq' | 'createdAt'>;
  /** Replaces a stored message with a new version of itself (same id, chat, seq). */
  replace(message: ChatMessage): void;
  get(chatId: string, id: string): ChatMessage | undefined;
  /** The newest `limit` messages before `beforeSeq` (all when absent), oldest first, and whether older ones exist. */
  page(
    chatId: string,
    options?: { beforeSeq?: number | undefined; limit?: number | undefined },
  ): { messages: ChatMessage[]; hasMore: boolean };
  /** Every message of one exchange, in order (checked for their shape only: the loop's own reads). */
  exchange(chatId: string, exchangeId: string): ChatMessage[];
  /** The whole chat, in order. */
  all(chatId: string): ChatMessage[];
}

const ROLES = new Set<string>(['user', 'assistant', 'approval', 'system', 'error']);

function readBody(row: MessageRow): unknown {
  try {
    return JSON.parse(row.body);
  } catch {
    throw new WorkbenchError('internal', 'A stored chat message is damaged: its body is not JSON.');
  }
}

export function createMessageStore(db: Database): MessageStore {
  // One statement takes the next seq and writes it into the body too, so it is atomic on its own: two processes
  // appending to one chat queue up on SQLite's write lock, and no separate transaction is needed.
  const insert = db.prepare<
    [{ id: string; chatId: string; exchangeId: string; role: string; createdAt: number; body: string }],
    { seq: number }
  >(
    `INSERT INTO chat_messages (id, chat_id, seq, exchange_id, role, created_at, body)
     SELECT @id, @chatId, next.seq, @exchangeId, @role, @createdAt, json_set(@body, '$.seq', next.seq)
     FROM (SELECT coalesce(max(seq), 0) + 1 AS seq FROM chat_messages WHERE chat_id = @chatId) AS next
     RETURNING seq`,
  );
  const update = db.prepare<[string, string, string]>('UPDATE chat_messages SET body = ? WHERE chat_id = ? AND id = ?');
  const get = db.prepare<[string, string], MessageRow>('SELECT body FROM chat_messages WHERE chat_id = ? AND id = ?');
  const newest = db.prepare<[string, number, number], MessageRow>(
    'SELECT body FROM chat_messages WHERE chat_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
  );
  const byExchange = db.prepare<[string, string], MessageRow>(
    'SELECT body FROM chat_messages WHERE chat_id = ? AND exchange_id = ? ORDER BY seq',
  );
  const all = db.prepare<[string], MessageRow>('SELECT body FROM chat_messages WHERE chat_id = ? ORDER BY seq');
  // What front ends read is checked whole; the loop's own reads (every round) only for their shape, because a full
  // check of a long chat on every round would cost more than the rest of the round.
  const parse = (row: MessageRow): ChatMessage => {
    const result = ChatMessageSchema.safeParse(readBody(row));
    if (!result.success)
      throw new WorkbenchError(
        'internal',
        `A stored chat message is damaged and cannot be shown: ${result.error.issues[0]?.message ?? 'invalid'}.`,
      );
    return result.data;
  };
  const parseOwn = (row: MessageRow): ChatMessage => {
    const body = readBody(row) as ChatMessage;
    if (typeof body !== 'object' || body === null || !ROLES.has(body.role))
      throw new WorkbenchError('internal', 'A stored chat message is damaged: it has no known role.');
    return body;
  };
  const append = (message: NewMessage, createdAt: number): ChatMessage => {
    // seq 0 holds the key's place in the body; SQL puts the real one there.
    const stored = { ...message, id: randomUUID(), seq: 0, createdAt } as ChatMessage;
    const row = {
      id: stored.id,
      chatId: message.chatId,
      exchangeId: message.exchangeId,
      role: message.role,
      createdAt,
      body: JSON.stringify(stored),
    };
    const { seq } = insert.get(row) as { seq: number };
    stored.seq = seq;
    return stored;
  };
  return {
    append: (message, createdAt) => append(message, createdAt) as never,
    replace(message) {
      update.run(JSON.stringify(message), message.chatId, message.id);
    },
    get(chatId, id) {
      const row = get.get(chatId, id);
      return row && parse(row);
    },
    page(chatId, options = {}) {
      const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
      const rows = newest.all(
        chatId,
        options.beforeSeq ?? Number.MAX_SAFE_INTEGER,
        limit === Number.MAX_SAFE_INTEGER ? -1 : limit + 1,
      );
      const hasMore = rows.length > limit;
      return { messages: rows.slice(0, limit).reverse().map(parse), hasMore };
    },
    exchange: (chatId, exchangeId) => byExchange.all(chatId, exchangeId).map(parseOwn),
    all: (chatId) => all.all(chatId).map(parseOwn),
  };
}
