import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChange } from '../../shared/chat';
import { WorkbenchError } from '../errors';
import { createEventHub } from '../event-hub';
import { createServices, type Services } from '../services';
import { openDatabase, type Database } from '../storage/database';
import { createChatRepository } from './chat-repository';
import { createChatService, DEFAULT_CHAT_TITLE, type ChatService } from './chat-service';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const NO_SETUP = { providerId: null, model: null, systemPrompt: null };

let dir: string;
let db: Database;
let clock: number;
let changes: ChatChange[];
let chats: ChatService;

function expectNotFound(action: () => unknown, id: string): void {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WorkbenchError);
  expect((caught as WorkbenchError).code).toBe('not_found');
  expect((caught as WorkbenchError).message).toContain(id);
  expect((caught as WorkbenchError).toData()).toEqual({
    code: 'not_found',
    message: `No chat has the id ${id}.`,
    details: { id },
  });
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-chats-'));
  db = openDatabase(path.join(dir, 'workbench.db'));
  clock = 1_000;
  changes = [];
  const events = createEventHub();
  events.subscribe((event, payload) => {
    expect(event).toBe('chat.onDidChange');
    // The hub carries every service's events; this one only emits chat changes.
    changes.push(payload as ChatChange);
  });
  // A clock that moves only when told: the order of the list does not depend on real time.
  chats = createChatService({ repository: createChatRepository(db), events, now: () => clock });
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ChatService', () => {
  it('creates a chat with the default title, a uuid and equal timestamps, and announces it', () => {
    const chat = chats.create();
    expect(chat).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: DEFAULT_CHAT_TITLE,
      createdAt: 1_000,
      updatedAt: 1_000,
      ...NO_SETUP,
    });
    expect(DEFAULT_CHAT_TITLE).toBe('New chat');
    expect(changes).toEqual([{ kind: 'created', chat }]);
    expect(chats.get(chat.id)).toEqual(chat);
  });

  it('creates a chat with the given title', () => {
    const chat = chats.create({ title: 'Trip planning' });
    expect(chat.title).toBe('Trip planning');
    expect(chats.get(chat.id).title).toBe('Trip planning');
  });

  it('gives every chat its own id', () => {
    const ids = new Set(Array.from({ length: 50 }, () => chats.create().id));
    expect(ids.size).toBe(50);
  });

  it('lists chats most recently updated first', () => {
    const first = chats.create({ title: 'first' });
    clock = 2_000;
    const second = chats.create({ title: 'second' });
    clock = 3_000;
    const third = chats.create({ title: 'third' });
    expect(chats.list().map((chat) => chat.title)).toEqual(['third', 'second', 'first']);

    clock = 4_000;
    chats.rename(first.id, 'first, renamed');
    expect(chats.list().map((chat) => chat.id)).toEqual([first.id, third.id, second.id]);
  });

  it('lists chats updated in the same millisecond in a stable order', () => {
    const created = Array.from({ length: 5 }, (_, index) => chats.create({ title: `chat ${index}` }));
    const listed = chats.list().map((chat) => chat.id);
    expect(listed).toEqual([...created.map((chat) => chat.id)].sort());
    expect(chats.list().map((chat) => chat.id)).toEqual(listed);
  });

  it('renames a chat: new title and updatedAt, same createdAt, announced as updated', () => {
    const chat = chats.create({ title: 'old' });
    changes.length = 0;
    clock = 5_000;
    const renamed = chats.rename(chat.id, 'new');
    expect(renamed).toEqual({ id: chat.id, title: 'new', createdAt: 1_000, updatedAt: 5_000, ...NO_SETUP });
    expect(chats.get(chat.id)).toEqual(renamed);
    expect(changes).toEqual([{ kind: 'updated', chat: renamed }]);
  });

  it('deletes a chat and announces it by id', () => {
    const keep = chats.create({ title: 'keep' });
    const gone = chats.create({ title: 'gone' });
    changes.length = 0;
    chats.delete(gone.id);
    expect(changes).toEqual([{ kind: 'deleted', id: gone.id }]);
    expect(chats.list()).toEqual([keep]);
    expectNotFound(() => chats.get(gone.id), gone.id);
  });

  it('answers not_found for unknown ids, and announces nothing', () => {
    chats.create();
    changes.length = 0;
    expectNotFound(() => chats.get(UNKNOWN_ID), UNKNOWN_ID);
    expectNotFound(() => chats.rename(UNKNOWN_ID, 'title'), UNKNOWN_ID);
    expectNotFound(() => chats.delete(UNKNOWN_ID), UNKNOWN_ID);
    expect(changes).toEqual([]);
    expect(chats.list()).toHaveLength(1);
  });

  it('a chat deleted twice is not_found the second time', () => {
    const chat = chats.create();
    chats.delete(chat.id);
    expectNotFound(() => chats.delete(chat.id), chat.id);
  });

  it('stores titles as given, quotes and unicode included', () => {
    const title = `Robert'); DROP TABLE chats;-- «日本語» 🧪`;
    const chat = chats.create({ title });
    expect(chats.get(chat.id).title).toBe(title);
    expect(db.prepare('SELECT count(*) FROM chats').pluck().get()).toBe(1);
  });
});

describe('chats through createServices', () => {
  const opened: Services[] = [];
  const start = (): Services => {
    const services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0-test' });
    opened.push(services);
    return services;
  };

  afterEach(() => {
    for (const services of opened.splice(0)) services.close();
  });

  it('keeps chats across closing and reopening the database', () => {
    const first = start();
    expect(first.databaseFile).toBe(path.join(dir, 'workbench.db'));
    const a = first.chats.create({ title: 'kept' });
    const b = first.chats.create({ title: 'renamed later' });
    const c = first.chats.create({ title: 'deleted' });
    const renamed = first.chats.rename(b.id, 'renamed');
    first.chats.delete(c.id);
    const before = first.chats.list();
    first.close();
    opened.length = 0;

    const second = start();
    expect(second.chats.list()).toEqual(before);
    expect(second.chats.get(a.id)).toEqual(a);
    expect(second.chats.get(b.id)).toEqual(renamed);
    expectNotFound(() => second.chats.get(c.id), c.id);
  });

  it('emits chat.onDidChange on the services event hub', () => {
    const services = start();
    const seen: string[] = [];
    const unsubscribe = services.events.subscribe((event, payload) => {
      if (event === 'chat.onDidChange') seen.push(`${event}:${(payload as ChatChange).kind}`);
    });
    const chat = services.chats.create();
    services.chats.rename(chat.id, 'x');
    unsubscribe();
    services.chats.delete(chat.id);
    expect(seen).toEqual(['chat.onDidChange:created', 'chat.onDidChange:updated']);
  });

  it('reports app info for the host, including the data folder and the SQLite version', () => {
    const info = start().appInfo();
    expect(info).toMatchObject({
      name: 'AI Workbench',
      version: '0.0.0-test',
      host: 'cli',
      dataDir: dir,
      platform: process.platform,
    });
    expect(info.versions.sqlite).toMatch(/^3\.\d+\.\d+/);
    expect(info.versions.node).toBe(process.versions.node);
  });
});
