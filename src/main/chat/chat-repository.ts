import type { Chat } from '../../shared/chat';
import type { Database } from '../storage/database';

interface ChatRow {
  id: string;
  title: string;
  created_at: number;
  updated_at: number;
}

const toChat = (row: ChatRow): Chat => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** SQL for the chats table, and nothing else. */
export interface ChatRepository {
  insert(chat: Chat): void;
  list(): Chat[];
  get(id: string): Chat | undefined;
  /** Returns false when no chat has that id. */
  rename(id: string, title: string, updatedAt: number): boolean;
  /** Returns false when no chat has that id. */
  delete(id: string): boolean;
}

export function createChatRepository(db: Database): ChatRepository {
  const insert = db.prepare<[string, string, number, number]>(
    'INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)',
  );
  const list = db.prepare<[], ChatRow>('SELECT * FROM chats ORDER BY updated_at DESC, created_at DESC, id');
  const get = db.prepare<[string], ChatRow>('SELECT * FROM chats WHERE id = ?');
  const rename = db.prepare<[string, number, string]>('UPDATE chats SET title = ?, updated_at = ? WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM chats WHERE id = ?');
  return {
    insert: (chat) => void insert.run(chat.id, chat.title, chat.createdAt, chat.updatedAt),
    list: () => list.all().map(toChat),
    get: (id) => {
      const row = get.get(id);
      return row && toChat(row);
    },
    rename: (id, title, updatedAt) => rename.run(title, updatedAt, id).changes > 0,
    delete: (id) => remove.run(id).changes > 0,
  };
}
