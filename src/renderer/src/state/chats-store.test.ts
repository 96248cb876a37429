import { describe, expect, it } from 'vitest';
import { buildWorkbenchApi, type WorkbenchTransport } from '../../../shared/api';
import type { Chat, ChatChange } from '../../../shared/chat';
import type { Envelope } from '../../../shared/errors';
import { ChatsStore } from './chats-store';

const chat = (id: number, updatedAt: number, title = `Chat ${id}`): Chat => ({
  id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  title,
  createdAt: updatedAt,
  updatedAt,
  providerId: 'demo',
  model: 'demo',
  systemPrompt: null,
});

/** A transport backed by an in-memory list, with a hand to push events as another client would. */
function fakeTransport(initial: Chat[]): {
  transport: WorkbenchTransport;
  push(change: ChatChange): void;
  fail: { next: string | null };
} {
  const chats = [...initial];
  const listeners = new Set<(payload: unknown) => void>();
  const fail = { next: null as string | null };
  const transport: WorkbenchTransport = {
    async invoke(method, input): Promise<Envelope> {
      if (fail.next) {
        const message = fail.next;
        fail.next = null;
        return { ok: false, error: { code: 'invalid_input', message } };
      }
      const args = input as { id?: string; title?: string } | undefined;
      switch (method) {
        case 'chat.list':
          return { ok: true, value: { chats } };
        case 'chat.create': {
          const created = chat(100 + chats.length, 10_000, args?.title ?? 'New chat');
          chats.push(created);
          return { ok: true, value: created };
        }
        case 'chat.rename': {
          const found = chats.find((c) => c.id === args?.id);
          if (!found) return { ok: false, error: { code: 'not_found', message: 'No chat' } };
          Object.assign(found, { title: args?.title, updatedAt: found.updatedAt + 1 });
          return { ok: true, value: { ...found } };
        }
        case 'chat.delete':
          chats.splice(
            chats.findIndex((c) => c.id === args?.id),
            1,
          );
          return { ok: true, value: { id: args?.id } };
        default:
          return { ok: false, error: { code: 'unknown_method', message: method } };
      }
    },
    subscribe(_event, listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { transport, push: (change) => listeners.forEach((listener) => listener(change)), fail };
}

describe('ChatsStore', () => {
  it('loads the chats most recently updated first and selects the first', async () => {
    const { transport } = fakeTransport([chat(1, 100), chat(2, 300), chat(3, 200)]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    await store.load();
    const state = store.getSnapshot();
    expect(state.status).toBe('ready');
    expect(state.chats.map((c) => c.title)).toEqual(['Chat 2', 'Chat 3', 'Chat 1']);
    expect(state.selectedId).toBe(chat(2, 0).id);
  });

  it('applies changes pushed by other clients, and its own change twice without duplicates', async () => {
    const { transport, push } = fakeTransport([chat(1, 100)]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    const stop = store.follow();
    await store.load();
    await store.create();
    const created = store.getSnapshot().chats[0];
    expect(created?.title).toBe('New chat');
    push({ kind: 'created', chat: created as Chat });
    expect(store.getSnapshot().chats).toHaveLength(2);
    expect(store.getSnapshot().selectedId).toBe(created?.id);

    push({ kind: 'updated', chat: { ...chat(1, 20_000), title: 'Renamed elsewhere' } });
    expect(store.getSnapshot().chats.map((c) => c.title)).toEqual(['Renamed elsewhere', 'New chat']);

    stop();
    push({ kind: 'deleted', id: chat(1, 0).id });
    expect(store.getSnapshot().chats).toHaveLength(2);
  });

  it('moves the selection to the neighbouring tab, else the neighbouring chat, when the selected chat is deleted', async () => {
    const { transport, push } = fakeTransport([chat(1, 300), chat(2, 200), chat(3, 100)]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    store.follow();
    await store.load();
    store.select(chat(2, 0).id);
    expect(store.getSnapshot().openIds).toEqual([chat(1, 0).id, chat(2, 0).id]);
    push({ kind: 'deleted', id: chat(2, 0).id });
    expect(store.getSnapshot().selectedId).toBe(chat(1, 0).id);
    expect(store.getSnapshot().openIds).toEqual([chat(1, 0).id]);
    expect(await store.remove(chat(1, 0).id)).toBe(true);
    expect(store.getSnapshot().selectedId).toBe(chat(3, 0).id);
    expect(store.getSnapshot().openIds).toEqual([chat(3, 0).id]);
    expect(await store.remove(chat(3, 0).id)).toBe(true);
    expect(store.getSnapshot().selectedId).toBeNull();
    expect(store.getSnapshot().openIds).toEqual([]);
  });

  it('opens, closes and reorders tabs', async () => {
    const { transport } = fakeTransport([chat(1, 300), chat(2, 200), chat(3, 100)]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    await store.load();
    const [one, two, three] = [chat(1, 0).id, chat(2, 0).id, chat(3, 0).id];
    store.select(two);
    store.select(three);
    expect(store.getSnapshot().openIds).toEqual([one, two, three]);
    store.moveTab(three, 0);
    expect(store.getSnapshot().openIds).toEqual([three, one, two]);
    store.closeTab(three);
    // The selected tab closed: the one that took its place is shown.
    expect(store.getSnapshot()).toMatchObject({ openIds: [one, two], selectedId: one });
    store.closeTab(two);
    expect(store.getSnapshot()).toMatchObject({ openIds: [one], selectedId: one });
    store.closeTab(one);
    expect(store.getSnapshot()).toMatchObject({ openIds: [], selectedId: null });
  });

  it('keeps the list and shows the error when a rename is refused, and clears it on the next success', async () => {
    const { transport, fail } = fakeTransport([chat(1, 100)]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    await store.load();
    fail.next = 'Invalid input for chat.rename: title: must not be empty';
    expect(await store.rename(chat(1, 0).id, ' ')).toBe(false);
    expect(store.getSnapshot().error).toBe('Invalid input for chat.rename: title: must not be empty');
    expect(store.getSnapshot().chats[0]?.title).toBe('Chat 1');
    expect(await store.rename(chat(1, 0).id, 'Better')).toBe(true);
    expect(store.getSnapshot().error).toBeNull();
    expect(store.getSnapshot().chats[0]?.title).toBe('Better');
  });

  it('opens a chat that arrives while none is open, and keeps the selection otherwise', async () => {
    const { transport, push } = fakeTransport([]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    store.follow();
    await store.load();
    expect(store.getSnapshot().selectedId).toBeNull();
    push({ kind: 'created', chat: chat(7, 100) });
    expect(store.getSnapshot().selectedId).toBe(chat(7, 0).id);
    push({ kind: 'created', chat: chat(8, 200) });
    expect(store.getSnapshot().selectedId).toBe(chat(7, 0).id);
  });

  it('reports a failed first load as failed, with the reason', async () => {
    const { transport, fail } = fakeTransport([]);
    const store = new ChatsStore(buildWorkbenchApi(transport));
    fail.next = 'Not connected to AI Workbench.';
    await store.load();
    expect(store.getSnapshot()).toMatchObject({ status: 'failed', error: 'Not connected to AI Workbench.' });
  });
});
