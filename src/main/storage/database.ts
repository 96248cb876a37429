import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from './sqlite-driver';
import { migrations as defaultMigrations } from './migrations';
import { createOwnerOnlyFile, OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from './owner-only';

export type Database = BetterSqlite3.Database;

/** 'AIWB' in ASCII: marks the file as ours, so we never migrate somebody else's database. */
export const APPLICATION_ID = 0x41495742;
export const DATABASE_FILE_NAME = 'workbench.db';

export type DatabaseOpenErrorReason = 'corrupt' | 'newer-version' | 'foreign' | 'unreadable';

/** The database could not be opened; the file is left exactly as it was. */
export class DatabaseOpenError extends Error {
  constructor(
    readonly file: string,
    readonly reason: DatabaseOpenErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}

export interface OpenDatabaseOptions {
  migrations?: readonly string[];
  /** How long a writer waits for another process (the CLI, a second window) before failing. */
  busyTimeoutMs?: number;
}

/**
 * Opens (or creates) the SQLite database in WAL mode and brings its schema up to date.
 * A corrupt file, a file from a newer version of the app or a file that is not ours raises
 * `DatabaseOpenError` naming the file; it is never deleted, rewritten or recreated.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  // Another process opening the same new file (the app and the CLI at once, on a busy machine) can hold it for
  // longer than one busy timeout, and SQLite does not wait at all in some cases (changing the journal mode):
  // a locked open is tried again, as a whole, for a while before it counts as an error.
  const deadline = Date.now() + 3 * busyTimeoutMs;
  for (;;) {
    try {
      return openOnce(file, options.migrations ?? defaultMigrations, busyTimeoutMs);
    } catch (error) {
      if (!(error instanceof DatabaseOpenError && isBusy(error.cause)) || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

function openOnce(file: string, migrations: readonly string[], busyTimeoutMs: number): Database {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: OWNER_ONLY_FOLDER });
  const isNew = !fs.existsSync(file) || fs.statSync(file).size === 0;
  let db: Database;
  try {
    // SQLite would create the file 0644; made 0600 first, its WAL and SHM follow (docs/user/data.md).
    createOwnerOnlyFile(file);
    db = new Sqlite(file, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new DatabaseOpenError(file, 'unreadable', `Cannot open the database ${file}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  try {
    checkIdentity(db, file, isNew, migrations.length);
    db.pragma('journal_mode = WAL');
    tightenCompanions(file);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof DatabaseOpenError) throw error;
    if (isCorruption(error)) {
      throw new DatabaseOpenError(
        file,
        'corrupt',
        `The database ${file} is damaged (${messageOf(error)}). AI Workbench left it untouched: ` +
          'restore it from a backup, or move it away to start with an empty one.',
        { cause: error },
      );
    }
    throw new DatabaseOpenError(file, 'unreadable', `Cannot open the database ${file}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * SQLite creates the WAL and SHM with the database file's mode, but ones left by an older version (0644) keep
 * theirs: after the switch to WAL, both exist and are made owner-only. Not on Windows, which has no such modes.
 */
function tightenCompanions(file: string): void {
  if (process.platform === 'win32') return;
  for (const companion of [`${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(companion).mode & 0o077) !== 0) fs.chmodSync(companion, OWNER_ONLY_FILE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function checkIdentity(db: Database, file: string, isNew: boolean, known: number): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const hasTables = (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n > 0;
  // An empty database without an id (a crashed first start) is ours to fill; one stamped by another program is not.
  if (!isNew && applicationId !== APPLICATION_ID && (hasTables || applicationId !== 0)) {
    throw new DatabaseOpenError(
      file,
      'foreign',
      `The file ${file} is an SQLite database, but not one of AI Workbench's. It was left untouched; ` +
        'move it away or set WORKBENCH_HOME to another folder.',
    );
  }
  if (version > known) {
    throw new DatabaseOpenError(
      file,
      'newer-version',
      `The database ${file} was written by a newer version of AI Workbench (schema ${version}; this version ` +
        `knows up to ${known}). It was left untouched: update AI Workbench, or set WORKBENCH_HOME to another folder.`,
    );
  }
}

function migrate(db: Database, migrations: readonly string[]): void {
  // Each step re-reads the version under the write lock, so two processes opening a new
  // database at once (the app and the CLI) never apply the same migration twice.
  const step = db.transaction((): boolean => {
    const version = db.pragma('user_version', { simple: true }) as number;
    const migration = migrations[version];
    if (migration === undefined) return false;
    db.exec(migration);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // applied one migration; look for the next
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'SQLITE_CORRUPT' ||
    code === 'SQLITE_NOTADB' ||
    (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))
  );
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
