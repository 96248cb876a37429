import { randomUUID } from 'node:crypto';
import { ChatMessageSchema, type ChatMessage } from '../../shared/messages';
import type { Database } from '../storage/database';

interface MessageRow {
  body: string;
}

/** A message before the store gives it its place: everything but `id`, `seq` and `createdAt`. */
export type NewMessage = ChatMessage extends infer M ? (M extends ChatMessage ? Omit<M, 'id' | 'seq' | 'createdAt'> : never) : never;

/** SQL for chat_messages: append in order, replace one whole, read back (all, a page, an exchange). */
export interface MessageStore {
  /** Appends at the end of the chat, in one statement: the next `seq` is taken atomically (two processes may write). */
  append<M extends NewMessage>(message: M, createdAt: number): M & Pick<ChatMessage, 'id' | 'seq' | 'createdAt'>;
  /** Replaces a stored message with a new version of itself (same id, chat, seq). */
  replace(message: ChatMessage): void;
  get(chatId: string, id: string): ChatMessage | undefined;
  /** The newest `limit` messages before `beforeSeq` (all when absent), oldest first, and whether older ones exist. */
  page(chatId: string, options?: { beforeSeq?: number | undefined; limit?: number | undefined }): { messages: ChatMessage[]; hasMore: boolean };
  /** Every message of one exchange, in order. */
  exchange(chatId: string, exchangeId: string): ChatMessage[];
  /** The whole chat, in order. */
  all(chatId: string): ChatMessage[];
}

export function createMessageStore(db: Database): MessageStore {
  const insert = db.prepare<[string, string, string, string, string, number, string]>(
    `INSERT INTO chat_messages (id, chat_id, seq, exchange_id, role, created_at, body)
     VALUES (?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM chat_messages WHERE chat_id = ?), ?, ?, ?, ?)
     RETURNING seq`,
  );
  const update = db.prepare<[string, string, string]>('UPDATE chat_messages SET body = ? WHERE chat_id = ? AND id = ?');
  const get = db.prepare<[string, string], MessageRow>('SELECT body FROM chat_messages WHERE chat_id = ? AND id = ?');
  const newest = db.prepare<[string, number, number], MessageRow>(
    'SELECT body FROM chat_messages WHERE chat_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
  );
  const byExchange = db.prepare<[string, string], MessageRow>('SELECT body FROM chat_messages WHERE chat_id = ? AND exchange_id = ? ORDER BY seq');
  const all = db.prepare<[string], MessageRow>('SELECT body FROM chat_messages WHERE chat_id = ? ORDER BY seq');
  const parse = (row: MessageRow): ChatMessage => ChatMessageSchema.parse(JSON.parse(row.body));
  // The body is the whole message; seq is filled in after the insert picked it, in the same transaction.
  const append = db.transaction((message: NewMessage, createdAt: number): ChatMessage => {
    const id = randomUUID();
    const draft = { ...message, id, seq: 0, createdAt } as ChatMessage;
    const { seq } = insert.get(id, message.chatId, message.chatId, message.exchangeId, message.role, createdAt, '{}') as { seq: number };
    const stored = { ...draft, seq } as ChatMessage;
    update.run(JSON.stringify(stored), message.chatId, id);
    return stored;
  });
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
      const rows = newest.all(chatId, options.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit === Number.MAX_SAFE_INTEGER ? -1 : limit + 1);
      const hasMore = rows.length > limit;
      return { messages: rows.slice(0, limit).reverse().map(parse), hasMore };
    },
    exchange: (chatId, exchangeId) => byExchange.all(chatId, exchangeId).map(parse),
    all: (chatId) => all.all(chatId).map(parse),
  };
}
