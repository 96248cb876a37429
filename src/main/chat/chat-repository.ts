import type { Chat } from '../../shared/chat';
import type { Database } from '../storage/database';

interface ChatRow {
  id: string;
  title: string;
  created_at: number;
  updated_at: number;
  provider_id: string | null;
  model: string | null;
  system_prompt: string | null;
}

const toChat = (row: ChatRow): Chat => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  providerId: row.provider_id,
  model: row.model,
  systemPrompt: row.system_prompt,
});

/** What `configure` changes: the chat's provider, model and system prompt. */
export type ChatSetup = Pick<Chat, 'providerId' | 'model' | 'systemPrompt'>;

/** SQL for the chats table, and nothing else. */
export interface ChatRepository {
  insert(chat: Chat): void;
  list(): Chat[];
  get(id: string): Chat | undefined;
  /** Returns false when no chat has that id. */
  rename(id: string, title: string, updatedAt: number): boolean;
  /** Returns false when no chat has that id. */
  configure(id: string, setup: ChatSetup, updatedAt: number): boolean;
  /** Moves the chat to the top of the list (a new message). Returns false when no chat has that id. */
  touch(id: string, updatedAt: number): boolean;
  /** Returns false when no chat has that id. */
  delete(id: string): boolean;
}

export function createChatRepository(db: Database): ChatRepository {
  const insert = db.prepare<[string, string, number, number, string | null, string | null, string | null]>(
    'INSERT INTO chats (id, title, created_at, updated_at, provider_id, model, system_prompt) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const list = db.prepare<[], ChatRow>('SELECT * FROM chats ORDER BY updated_at DESC, created_at DESC, id');
  const get = db.prepare<[string], ChatRow>('SELECT * FROM chats WHERE id = ?');
  const rename = db.prepare<[string, number, string]>('UPDATE chats SET title = ?, updated_at = ? WHERE id = ?');
  const configure = db.prepare<[string | null, string | null, string | null, number, string]>(
    'UPDATE chats SET provider_id = ?, model = ?, system_prompt = ?, updated_at = ? WHERE id = ?',
  );
  const touch = db.prepare<[number, string]>('UPDATE chats SET updated_at = max(updated_at, ?) WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM chats WHERE id = ?');
  return {
    insert: (chat) =>
      void insert.run(
        chat.id,
        chat.title,
        chat.createdAt,
        chat.updatedAt,
        chat.providerId,
        chat.model,
        chat.systemPrompt,
      ),
    list: () => list.all().map(toChat),
    get: (id) => {
      const row = get.get(id);
      return row && toChat(row);
    },
    rename: (id, title, updatedAt) => rename.run(title, updatedAt, id).changes > 0,
    configure: (id, setup, updatedAt) =>
      configure.run(setup.providerId, setup.model, setup.systemPrompt, updatedAt, id).changes > 0,
    touch: (id, updatedAt) => touch.run(updatedAt, id).changes > 0,
    delete: (id) => remove.run(id).changes > 0,
  };
}
