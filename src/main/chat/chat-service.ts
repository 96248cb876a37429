import { randomUUID } from 'node:crypto';
import type { Chat, ChatChange, ChatConfigureInput, ChatCreateInput } from '../../shared/chat';
import { createEmitter, type Subscribe } from '../emitter';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { ChatRepository } from './chat-repository';

export const DEFAULT_CHAT_TITLE = 'New chat';

/** Which provider and model a new chat talks to when it names none. */
export interface ChatDefaults {
  /** The first configured provider and its default model; nulls when none is configured. */
  defaults(): { providerId: string | null; model: string | null };
  /** The default model of a provider; throws `not_found` for an unknown one. */
  defaultModelOf(providerId: string): string | null;
}

/** Chats: create, list, rename, configure, delete. Every change is announced: `onDidChange`, and `chat.onDidChange` to the hosts. */
export interface ChatService {
  /** Throws `not_found` for an unknown provider. */
  create(input?: ChatCreateInput): Chat;
  list(): Chat[];
  /** Throws `not_found` for an unknown id. */
  get(id: string): Chat;
  /** Throws `not_found` for an unknown id. */
  rename(id: string, title: string): Chat;
  /** Changes provider, model or system prompt; a new provider without a model takes its default. Throws `not_found`. */
  configure(input: ChatConfigureInput): Chat;
  /** A new message moved the chat to the top of the list. Throws `not_found`. */
  touch(id: string): Chat;
  /** Throws `not_found` for an unknown id. */
  delete(id: string): void;
  /** Each change of a chat (created, updated, deleted), typed, for the services that follow chats. */
  readonly onDidChange: Subscribe<ChatChange>;
}

export interface ChatServiceDependencies {
  repository: ChatRepository;
  events: EventHub;
  /** Without it, chats start with no provider. */
  providers?: ChatDefaults;
  now?: () => number;
  newId?: () => string;
}

export function createChatService({
  repository,
  events,
  providers,
  now = Date.now,
  newId = randomUUID,
}: ChatServiceDependencies): ChatService {
  const notFound = (id: string): WorkbenchError => new WorkbenchError('not_found', `No chat has the id ${id}.`, { id });
  const emitter = createEmitter<ChatChange>();
  /** Told to the services that follow chats (typed), and fanned out to the hosts by the hub. */
  const announce = (change: ChatChange): void => {
    emitter.fire(change);
    events.emit('chat.onDidChange', change);
  };
  const changed = (chat: Chat): Chat => {
    announce({ kind: 'updated', chat });
    return chat;
  };
  const service: ChatService = {
    onDidChange: emitter.event,
    create(input = {}) {
      const time = now();
      const fallback = providers?.defaults() ?? { providerId: null, model: null };
      // Naming a provider checks that it exists, even with a model given.
      const named = input.providerId === undefined ? undefined : (providers?.defaultModelOf(input.providerId) ?? null);
      const providerId = input.providerId ?? fallback.providerId;
      const model = input.model ?? (named === undefined ? fallback.model : named);
      const chat: Chat = {
        id: newId(),
        title: input.title ?? DEFAULT_CHAT_TITLE,
        createdAt: time,
        updatedAt: time,
        providerId,
        model,
        systemPrompt: input.systemPrompt ?? null,
      };
      repository.insert(chat);
      announce({ kind: 'created', chat });
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
      return changed(service.get(id));
    },
    configure({ id, providerId, model, systemPrompt }) {
      const chat = service.get(id);
      const named = providerId === undefined ? undefined : (providers?.defaultModelOf(providerId) ?? null);
      const providerChanged = providerId !== undefined && providerId !== chat.providerId;
      const nextModel = model ?? (providerChanged ? (named ?? null) : chat.model);
      const setup = {
        providerId: providerId ?? chat.providerId,
        model: nextModel,
        systemPrompt:
          systemPrompt === undefined
            ? chat.systemPrompt
            : systemPrompt === null || systemPrompt.trim() === ''
              ? null
              : systemPrompt,
      };
      if (!repository.configure(id, setup, now())) throw notFound(id);
      return changed(service.get(id));
    },
    touch(id) {
      if (!repository.touch(id, now())) throw notFound(id);
      return changed(service.get(id));
    },
    delete(id) {
      if (!repository.delete(id)) throw notFound(id);
      announce({ kind: 'deleted', id });
    },
  };
  return service;
}
