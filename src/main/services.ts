import path from 'node:path';
import type { AppInfo, HostKind } from '../shared/app';
import { APP_NAME } from '../shared/app';
import type { AuditLog } from './audit/audit-log';
import { createSqliteAuditLog } from './audit/sqlite-audit-log';
import { createChatRepository } from './chat/chat-repository';
import { createChatService, type ChatService } from './chat/chat-service';
import { createEventHub, type EventHub } from './event-hub';
import { openFileSecretStore, SECRETS_FILE_NAME, type SecretCipher, type SecretStore } from './settings/secret-store';
import { openSettingsStore, SETTINGS_FILE_NAME, SettingsError, type SettingsStore } from './settings/settings-store';
import { DATABASE_FILE_NAME, DatabaseOpenError, openDatabase, type Database } from './storage/database';

/** The plain-Node services every host wires: the Electron app, browser mode and the CLI. */
export interface Services {
  readonly dataDir: string;
  readonly databaseFile: string;
  readonly events: EventHub;
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  readonly chats: ChatService;
  readonly audit: AuditLog;
  appInfo(): AppInfo;
  close(): void;
}

export interface ServicesOptions {
  dataDir: string;
  host: HostKind;
  version: string;
  /** Extra versions the host knows (Electron's and Chromium's). */
  versions?: { electron?: string; chrome?: string };
  /** How secrets are protected at rest; the Electron host passes one built on safeStorage. */
  secretCipher?: SecretCipher;
  onListenerError?: (error: unknown) => void;
  /** The built audit-worker.js next to the host's entry; without it, audit verify runs on one thread. */
  auditWorkerFile?: string;
}

/** Errors that stop the start and that a person can fix (the message names the file): shown as they are. */
export function isStartupProblem(error: unknown): error is DatabaseOpenError | SettingsError {
  return error instanceof DatabaseOpenError || error instanceof SettingsError;
}

/**
 * Opens the settings, secrets and database and builds the services. Throws `SettingsError` or
 * `DatabaseOpenError`, naming the file, when one of them cannot be used; nothing is overwritten.
 */
export function createServices(options: ServicesOptions): Services {
  const settings = openSettingsStore(path.join(options.dataDir, SETTINGS_FILE_NAME));
  const secrets = openFileSecretStore(path.join(options.dataDir, SECRETS_FILE_NAME), options.secretCipher);
  const databaseFile = path.join(options.dataDir, DATABASE_FILE_NAME);
  const db: Database = openDatabase(databaseFile);
  const events = createEventHub(options.onListenerError);
  const chats = createChatService({ repository: createChatRepository(db), events });
  const audit = createSqliteAuditLog({ db, dataDir: options.dataDir, workerFile: options.auditWorkerFile });
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    dataDir: options.dataDir,
    databaseFile,
    events,
    settings,
    secrets,
    chats,
    audit,
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
