import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatRepository } from '../chat/chat-repository';
import { migrations } from './migrations';
import { APPLICATION_ID, DatabaseOpenError, openDatabase, type Database } from './database';

let dir: string;
let file: string;
const opened: Database[] = [];

function open(target = file, options?: Parameters<typeof openDatabase>[1]): Database {
  const db = openDatabase(target, options);
  opened.push(db);
  return db;
}

function openError(target: string, options?: Parameters<typeof openDatabase>[1]): DatabaseOpenError {
  try {
    open(target, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DatabaseOpenError);
    return error as DatabaseOpenError;
  }
  throw new Error(`openDatabase(${target}) succeeded, but an error was expected`);
}

/** Builds an SQLite file without our code, as another program (or another version) would. */
function writeRawDatabase(target: string, setup: (db: BetterSqlite3.Database) => void): void {
  const db = new BetterSqlite3(target);
  try {
    setup(db);
  } finally {
    db.close();
  }
}

function listDir(folder: string): string[] {
  return fs.readdirSync(folder).sort();
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-db-'));
  file = path.join(dir, 'workbench.db');
});

afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase on a new file', () => {
  it('creates the file in WAL mode, stamped as ours, with every migration applied', () => {
    const db = open(path.join(dir, 'nested', 'folder', 'workbench.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
    expect(tables).toContain('chats');
  });

  it('treats an existing empty file (a crashed first start) as new', () => {
    fs.writeFileSync(file, '');
    const db = open();
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
  });

  it('is idempotent: reopening keeps the schema, the version and the data', () => {
    const first = open();
    first.prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('a', 'kept', 1, 2);
    first.close();

    const second = open();
    expect(second.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(second.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(second.prepare('SELECT title FROM chats').pluck().all()).toEqual(['kept']);
    const objects = second.prepare('SELECT type, name FROM sqlite_schema ORDER BY name').all();
    second.close();

    const third = open();
    expect(third.prepare('SELECT type, name FROM sqlite_schema ORDER BY name').all()).toEqual(objects);
  });
});

describe('migrations', () => {
  // CREATE TABLE without IF NOT EXISTS fails when run twice, and the log counts every run.
  const counted = [
    'CREATE TABLE log (step INTEGER NOT NULL); INSERT INTO log VALUES (1);',
    'CREATE TABLE second (x INTEGER); INSERT INTO log VALUES (2);',
    'INSERT INTO log VALUES (3);',
  ];

  it('applies each migration exactly once over several opens, in order', () => {
    open(file, { migrations: counted.slice(0, 1) }).close();
    open(file, { migrations: counted.slice(0, 1) }).close();
    open(file, { migrations: counted }).close();
    const db = open(file, { migrations: counted });
    expect(db.prepare('SELECT step FROM log ORDER BY rowid').pluck().all()).toEqual([1, 2, 3]);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
  });

  it('leaves no trace of a migration that fails, and says which file failed', () => {
    const broken = [...counted.slice(0, 1), 'INSERT INTO log VALUES (2); CREATE TABLE oops (;'];
    const error = openError(file, { migrations: broken });
    expect(error.reason).toBe('unreadable');
    expect(error.message).toContain(file);

    const db = open(file, { migrations: counted.slice(0, 1) });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare('SELECT step FROM log').pluck().all()).toEqual([1]);
  });

  it('two connections opening one new file one after the other migrate it once', () => {
    const a = open(file, { migrations: counted });
    const b = open(file, { migrations: counted });
    expect(b.prepare('SELECT step FROM log ORDER BY rowid').pluck().all()).toEqual([1, 2, 3]);
    expect(a.pragma('user_version', { simple: true })).toBe(3);
  });

  it('several processes opening one new file at the same moment migrate it once', async () => {
    // Each child waits for a "go" file, then opens the database through the real openDatabase.
    const go = path.join(dir, 'go');
    const databaseModule = pathToFileURL(path.join(import.meta.dirname, 'database.ts')).href;
    const resolveHook = `export async function resolve(specifier, context, next) {
      try { return await next(specifier, context); }
      catch (error) { if (specifier.startsWith('.')) return next(specifier + '.ts', context); throw error; }
    }`;
    const child = `
      import fs from 'node:fs';
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook)}));
      const { openDatabase } = await import(${JSON.stringify(databaseModule)});
      while (!fs.existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 2));
      const db = openDatabase(${JSON.stringify(file)}, { migrations: ${JSON.stringify(counted)} });
      db.close();
    `;
    const runs = Array.from({ length: 4 }, () => {
      const proc = spawn(
        process.execPath,
        ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', child],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return new Promise<{ code: number | null; stderr: string }>((resolve) =>
        proc.on('close', (code) => resolve({ code, stderr })),
      );
    });
    fs.writeFileSync(go, '');
    const results = await Promise.all(runs);
    expect(results).toEqual(results.map(() => ({ code: 0, stderr: '' })));

    const db = open(file, { migrations: counted });
    expect(db.prepare('SELECT step FROM log ORDER BY rowid').pluck().all()).toEqual([1, 2, 3]);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
  });
});

describe('migration 8: one pending store', () => {
  it("moves the waiting tool calls into pending_requests as kind 'tool-call' and spells the stored waiting state once", () => {
    const before = open(file, { migrations: migrations.slice(0, 7) });
    before.prepare("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    before
      .prepare(
        "INSERT INTO pending_approvals (chat_id, tool_call_id, exchange_id, request, created_at, expires_at) VALUES ('c1', 'call-1', 'x1', '{}', 5, NULL)",
      )
      .run();
    const body = JSON.stringify({ text: 'he said "end":"waiting_approval"', end: 'waiting_approval' });
    before
      .prepare(
        "INSERT INTO chat_messages (id, chat_id, seq, exchange_id, role, created_at, body) VALUES ('m1', 'c1', 1, 'x1', 'assistant', 1, ?)",
      )
      .run(body);
    before.close();
    const db = open(file);
    expect(db.prepare('SELECT chat_id, request_id, kind, exchange_id, status FROM pending_requests').all()).toEqual([
      { chat_id: 'c1', request_id: 'call-1', kind: 'tool-call', exchange_id: 'x1', status: 'pending' },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'pending_approvals'").all()).toEqual([]);
    // The end is rewritten; the model's own text that happens to hold the words is not.
    expect(
      JSON.parse((db.prepare("SELECT body FROM chat_messages WHERE id = 'm1'").get() as { body: string }).body),
    ).toEqual({
      text: 'he said "end":"waiting_approval"',
      end: 'waiting-approval',
    });
    // A server's request from no chat has no chat; a second row with its id is refused.
    const insert = db.prepare(
      "INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at) VALUES (NULL, 'r1', 'sampling', '{}', 1)",
    );
    insert.run();
    expect(() => insert.run()).toThrow(/UNIQUE/);
  });
});

describe('a database another process holds', () => {
  /** Opens `file` through the real openDatabase in a child process; resolves with its exit code and stderr. */
  function openInChild(busyTimeoutMs: number): Promise<{ code: number | null; stderr: string }> {
    const databaseModule = pathToFileURL(path.join(import.meta.dirname, 'database.ts')).href;
    const resolveHook = `export async function resolve(specifier, context, next) {
      try { return await next(specifier, context); }
      catch (error) { if (specifier.startsWith('.')) return next(specifier + '.ts', context); throw error; }
    }`;
    const child = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(resolveHook)}));
      const { openDatabase } = await import(${JSON.stringify(databaseModule)});
      try { openDatabase(${JSON.stringify(file)}, { busyTimeoutMs: ${busyTimeoutMs} }).close(); }
      catch (error) { process.stderr.write(error.message); process.exitCode = 1; }
    `;
    const proc = spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', child],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
  }

  /** Holds the write lock of `file` (as another process would, migrating) until the returned function is called. */
  function holdWriteLock(): () => void {
    const holder = new BetterSqlite3(file);
    holder.exec('BEGIN EXCLUSIVE');
    return () => {
      holder.exec('COMMIT');
      holder.close();
    };
  }

  it('is waited for when it holds the file longer than one busy timeout, then opened', async () => {
    open(file).close();
    const release = holdWriteLock();
    const opening = openInChild(400);
    setTimeout(release, 900);
    expect(await opening).toEqual({ code: 0, stderr: '' });
  });

  it('gives up with an error naming the file when it holds the file for too long', async () => {
    open(file).close();
    const release = holdWriteLock();
    try {
      const { code, stderr } = await openInChild(100);
      expect(code).toBe(1);
      expect(stderr).toBe(`Cannot open the database ${file}: database is locked`);
    } finally {
      release();
    }
  });
});

describe('openDatabase refuses files it must not touch', () => {
  it.each([
    ['random bytes', () => randomBytes(64 * 1024)],
    ['a short text file', () => Buffer.from('these are my notes, not a database\n')],
    ['a long text file', () => Buffer.from('lorem ipsum dolor sit amet\n'.repeat(1000))],
  ])('%s: reason corrupt, names the file, leaves it byte for byte', (_name, content) => {
    const bytes = content();
    fs.writeFileSync(file, bytes);
    const before = listDir(dir);

    const error = openError(file);
    expect(error.reason).toBe('corrupt');
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(listDir(dir)).toEqual(before);
  });

  it('a database from a newer version: reason newer-version, names the file, left byte for byte', () => {
    writeRawDatabase(file, (db) => {
      db.exec('CREATE TABLE chats (id TEXT PRIMARY KEY); CREATE TABLE from_the_future (x)');
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${migrations.length + 1}`);
    });
    const bytes = fs.readFileSync(file);

    const error = openError(file);
    expect(error.reason).toBe('newer-version');
    expect(error.message).toContain(file);
    expect(error.message).toContain(`schema ${migrations.length + 1}`);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(listDir(dir)).toEqual(['workbench.db']);
  });

  it("another program's SQLite database: reason foreign, names the file, left byte for byte", () => {
    writeRawDatabase(file, (db) => {
      db.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')");
      db.pragma('user_version = 0');
    });
    const bytes = fs.readFileSync(file);

    const error = openError(file);
    expect(error.reason).toBe('foreign');
    expect(error.message).toContain(file);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('an SQLite database stamped with another application id is foreign, even without tables', () => {
    writeRawDatabase(file, (db) => {
      db.pragma('application_id = 0x12345678');
    });
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBeGreaterThan(0);

    const error = openError(file);
    expect(error.reason).toBe('foreign');
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a damaged page in the middle of a real database is not read at open time; the damage surfaces as SQLITE_CORRUPT on first use', () => {
    const db = open();
    const insert = db.prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let index = 0; index < 2000; index++)
        insert.run(`chat-${index}`, `title ${index} ${'x'.repeat(100)}`, index, index);
    })();
    expect(db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'chats'").pluck().get()).toBe(2);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expect(fs.statSync(file).size).toBeGreaterThan(10 * pageSize);

    // Page 2 is the chats table's root page: overwrite it with garbage.
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, randomBytes(pageSize), 0, pageSize, pageSize);
    fs.closeSync(handle);

    // Opening reads only the header and the schema page (page 1), so it succeeds...
    const damaged = open();
    expect(damaged.pragma('user_version', { simple: true })).toBe(migrations.length);
    // ...and the damage shows on the first read of the table's rows, as SQLite's own corruption error.
    // (count(*) alone still answers: SQLite counts through an intact index instead.)
    const corrupt = expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CORRUPT/) });
    expect(() => createChatRepository(damaged).list()).toThrow(corrupt);
    expect(() => damaged.pragma('integrity_check')).toThrow(corrupt);
  });

  it('a damaged first page (the header and schema) gives a clear corrupt error and the file is left alone', () => {
    const db = open();
    db.prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('a', 'b', 1, 1);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, randomBytes(512), 0, 512, 100);
    fs.closeSync(handle);
    const bytes = fs.readFileSync(file);

    const error = openError(file);
    expect(error.reason).toBe('corrupt');
    expect(error.message).toContain(file);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a path that is a folder gives an unreadable error naming it', () => {
    const folder = path.join(dir, 'a-folder.db');
    fs.mkdirSync(folder);
    const error = openError(folder);
    expect(error.reason).toBe('unreadable');
    expect(error.message).toContain(folder);
  });
});
