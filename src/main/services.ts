import path from 'node:path';
import type { AppInfo, HostKind } from '../shared/app';
import { APP_NAME } from '../shared/app';
import { createChatRepository } from './chat/chat-repository';
import { createChatService, type ChatService } from './chat/chat-service';
import { createEventHub, type EventHub } from './event-hub';
import { DATABASE_FILE_NAME, openDatabase, type Database } from './storage/database';

/** The plain-Node services every host wires: the Electron app, browser mode and the CLI. */
export interface Services {
  readonly dataDir: string;
  readonly databaseFile: string;
  readonly events: EventHub;
  readonly chats: ChatService;
  appInfo(): AppInfo;
  close(): void;
}

export interface ServicesOptions {
  dataDir: string;
  host: HostKind;
  version: string;
  /** Extra versions the host knows (Electron's and Chromium's). */
  versions?: { electron?: string; chrome?: string };
  onListenerError?: (error: unknown) => void;
}

/** Opens the database (throws `DatabaseOpenError`, naming the file, when it cannot) and builds the services. */
export function createServices(options: ServicesOptions): Services {
  const databaseFile = path.join(options.dataDir, DATABASE_FILE_NAME);
  const db: Database = openDatabase(databaseFile);
  const events = createEventHub(options.onListenerError);
  const chats = createChatService({ repository: createChatRepository(db), events });
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    dataDir: options.dataDir,
    databaseFile,
    events,
    chats,
    appInfo: () => ({
      name: APP_NAME,
      version: options.version,
      host: options.host,
      platform: process.platform,
      dataDir: options.dataDir,
      versions: { node: process.versions.node, sqlite: sqliteVersion, ...options.versions },
    }),
    close: () => db.close(),
  };
}
