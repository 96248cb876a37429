import { randomUUID } from 'node:crypto';
import type { Chat } from '../../shared/chat';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { ChatRepository } from './chat-repository';

export const DEFAULT_CHAT_TITLE = 'New chat';

/** Chats: create, list, rename, delete. Every change is announced as `chat.onDidChange`. */
export interface ChatService {
  create(title?: string): Chat;
  list(): Chat[];
  /** Throws `not_found` for an unknown id. */
  get(id: string): Chat;
  /** Throws `not_found` for an unknown id. */
  rename(id: string, title: string): Chat;
  /** Throws `not_found` for an unknown id. */
  delete(id: string): void;
}

export interface ChatServiceDependencies {
  repository: ChatRepository;
  events: EventHub;
  now?: () => number;
  newId?: () => string;
}

export function createChatService({ repository, events, now = Date.now, newId = randomUUID }: ChatServiceDependencies): ChatService {
  const notFound = (id: string): WorkbenchError => new WorkbenchError('not_found', `No chat has the id ${id}.`, { id });
  const service: ChatService = {
    create(title) {
      const time = now();
      const chat: Chat = { id: newId(), title: title ?? DEFAULT_CHAT_TITLE, createdAt: time, updatedAt: time };
      repository.insert(chat);
      events.emit('chat.onDidChange', { kind: 'created', chat });
      return chat;
    },
    list: () => repository.list(),
    get(id) {
      const chat = repository.get(id);
      if (!chat) throw notFound(id);
      return chat;
    },
    rename(id, title) {
      if (!repository.rename(id, title, now())) throw notFound(id);
      const chat = service.get(id);
      events.emit('chat.onDidChange', { kind: 'updated', chat });
      return chat;
    },
    delete(id) {
      if (!repository.delete(id)) throw notFound(id);
      events.emit('chat.onDidChange', { kind: 'deleted', id });
    },
  };
  return service;
}
