import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditEntrySchema, type AuditEntry } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import { WorkbenchError } from '../errors';
import { openDatabase } from '../storage/database';
import { decisionRecord, fillLog, openTempAuditLog, resultRecord, type TempAuditLog } from './audit-test-support';
import { keyedArgsHash, loadArgsHashKey } from './args-hash';
import {
  AUDIT_COLUMNS_SQL,
  AUDIT_INSERT_SQL,
  canonicalContentOf,
  canonicalRowOf,
  GENESIS_HASH,
  HASH_INDEX,
  hashOfStoredRow,
  NO_RESULT,
  rowValues,
  sha256Hex,
  storedRowOf,
  type StoredAuditRow,
} from './audit-row';
import { REDACTED } from './redact';
import { createSqliteAuditLog } from './sqlite-audit-log';

let target: TempAuditLog;

beforeEach(() => {
  target = openTempAuditLog();
});

afterEach(() => {
  target.close();
});

/** What the hash of an entry must be: SHA-256 of the canonical JSON of everything but the hash. */
function expectedHash(entry: AuditEntry): string {
  const { hash: _hash, ...content } = entry;
  return sha256Hex(canonicalJson(content));
}

function storedRows(): unknown[][] {
  return target.db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`).raw().all() as unknown[][];
}

describe('recordDecision', () => {
  it('stores one row with every field, redacted arguments, the hash of the original arguments, and chains it to the genesis hash', () => {
    const args = {
      path: '/etc/hosts',
      apiKey: 'sk-live-0123456789abcdef0123',
      headers: { Authorization: 'Bearer abc.def.ghi' },
    };
    const entry = target.log.recordDecision({
      chatId: 'chat-1',
      exchangeId: 'exchange-1',
      toolCallId: 'call-1',
      serverName: 'Files',
      toolName: 'read_file',
      definitionHash: 'a'.repeat(64),
      decision: 'allow_once',
      actor: 'user',
      decidedBy: 'you allowed it once',
      reason: 'looks fine',
      args,
    });
    expect(AuditEntrySchema.parse(entry)).toEqual(entry);
    expect(entry).toMatchObject({
      sequence: 1,
      time: '2026-01-01T12:00:00.000Z',
      kind: 'decision',
      chatId: 'chat-1',
      exchangeId: 'exchange-1',
      toolCallId: 'call-1',
      serverName: 'Files',
      toolName: 'read_file',
      definitionHash: 'a'.repeat(64),
      decision: 'allow_once',
      actor: 'user',
      decidedBy: 'you allowed it once',
      reason: 'looks fine',
      args: { path: '/etc/hosts', apiKey: REDACTED, headers: { Authorization: REDACTED } },
      argsHash: keyedArgsHash(loadArgsHashKey(target.dataDir), canonicalJson(args)),
      editedArgs: null,
      editedArgsHash: null,
      outcome: null,
      durationMs: null,
      resultBytes: null,
      error: null,
      previousHash: GENESIS_HASH,
    });
    expect(entry.hash).toBe(expectedHash(entry));
    expect(target.log.query().entries).toEqual([entry]);
    expect(target.log.head()).toEqual({ sequence: 1, hash: entry.hash });
  });

  it('stores edited arguments redacted, with the hash of the edited original', () => {
    const edited = { path: '/tmp/safe', token: 'xyz' };
    const entry = target.log.recordDecision(decisionRecord(0, { editedArgs: edited }));
    expect(entry.editedArgs).toEqual({ path: '/tmp/safe', token: REDACTED });
    const key = loadArgsHashKey(target.dataDir);
    expect(entry.editedArgsHash).toBe(keyedArgsHash(key, canonicalJson(edited)));
    expect(entry.argsHash).toBe(keyedArgsHash(key, canonicalJson(decisionRecord(0).args)));
    expect(entry.editedArgsHash).not.toBe(entry.argsHash);
  });

  it('rows written before the hash was keyed keep their unkeyed hash: the chain still verifies, and each hash says its scheme', async () => {
    // A decision row as an older version wrote it: the bare SHA-256 of the canonical arguments.
    const args = { path: '/etc/hosts', password: 'hunter2' };
    const legacy: StoredAuditRow = {
      sequence: 1,
      time: new Date(0).toISOString(),
      kind: 'decision',
      requestedBy: null,
      chatId: 'chat-1',
      exchangeId: null,
      toolCallId: 'call-0',
      serverName: 'Files',
      toolName: 'read_file',
      definitionHash: null,
      decision: 'allow_once',
      actor: 'user',
      decidedBy: 'you allowed it once',
      reason: null,
      args: canonicalJson({ path: '/etc/hosts', password: REDACTED }),
      argsHash: sha256Hex(canonicalJson(args)),
      editedArgs: null,
      editedArgsHash: null,
      ...NO_RESULT,
      previousHash: GENESIS_HASH,
      hash: '',
    };
    const values = rowValues(legacy);
    values[HASH_INDEX] = hashOfStoredRow(values);
    target.db.prepare(AUDIT_INSERT_SQL).run(values);
    target.log.recordDecision(decisionRecord(1));
    const [old, keyed] = target.log.query().entries.reverse();
    expect(old?.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(keyed?.argsHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await target.log.verify()).toMatchObject({ ok: true, rowCount: 2 });
  });

  it('numbers rows without gaps and chains each to the one before', () => {
    fillLog(target, 40);
    const entries = target.log.query({ limit: 500 }).entries.reverse();
    expect(entries.map((entry) => entry.sequence)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    entries.forEach((entry, index) => {
      expect(entry.previousHash).toBe(index === 0 ? GENESIS_HASH : entries[index - 1]?.hash);
      expect(entry.hash).toBe(expectedHash(entry));
    });
  });

  it('refuses a record with an unknown decision or actor, naming the field, and stores nothing', () => {
    const bad = (record: unknown): WorkbenchError => {
      try {
        target.log.recordDecision(record as never);
      } catch (error) {
        expect(error).toBeInstanceOf(WorkbenchError);
        return error as WorkbenchError;
      }
      throw new Error('expected a refusal');
    };
    expect(bad({ ...decisionRecord(0), decision: 'maybe' }).message).toMatch(/decision/);
    expect(bad({ ...decisionRecord(0), actor: 'robot' }).message).toMatch(/actor/);
    expect(bad({ ...decisionRecord(0), chatId: '' }).code).toBe('invalid_input');
    expect(() => target.log.recordToolResult(resultRecord(1, { durationMs: Number.NaN }))).toThrow(/durationMs/);
    expect(() => target.log.recordToolResult(resultRecord(1, { outcome: 'success', error: 'x' }))).toThrow(/error/);
    expect(target.log.head().sequence).toBe(0);
  });

  it('raises for arguments that have no JSON form, and stores nothing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => target.log.recordDecision(decisionRecord(0, { args: cyclic }))).toThrow(/cycle/);
    expect(() => target.log.recordDecision(decisionRecord(0, { args: { big: 1n } }))).toThrow(/bigint/);
    expect(target.log.head().sequence).toBe(0);
  });

  it('refuses to write inside a transaction on the same connection, where the row would not be committed on return', () => {
    const inside = target.db.transaction(() => target.log.recordDecision(decisionRecord(0)));
    expect(() => inside()).toThrow(/cannot be written inside another transaction/);
    expect(target.log.head().sequence).toBe(0);
  });

  it('commits under synchronous=FULL and gives the connection back its NORMAL setting', () => {
    target.db.exec('CREATE TEMP TABLE seen (synchronous INTEGER)');
    target.db.exec(
      'CREATE TEMP TRIGGER watch AFTER INSERT ON main.audit_log BEGIN INSERT INTO seen SELECT synchronous FROM pragma_synchronous(); END',
    );
    expect(target.db.pragma('synchronous', { simple: true })).toBe(1);
    target.log.recordDecision(decisionRecord(0));
    target.log.recordToolResult(resultRecord(0));
    expect(target.db.prepare('SELECT synchronous FROM seen').pluck().all()).toEqual([2, 2]);
    expect(target.db.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('stores lone surrogates and NUL characters as they read back, so the chain still verifies', async () => {
    target.log.recordDecision(
      decisionRecord(0, { toolName: 'bad\ud800name', reason: 'nul\u0000inside', args: { text: 'x\udc00y' } }),
    );
    const [entry] = target.log.query().entries;
    expect(entry?.toolName).toBe('bad\ufffdname');
    expect(entry?.reason).toBe('nul\u0000inside');
    expect(entry?.args).toEqual({ text: 'x\udc00y' });
    expect(await target.log.verify()).toMatchObject({ ok: true, rowCount: 1 });
  });

  it('keeps one gapless chain when two connections (the app and the CLI) append in turn', async () => {
    const other = openDatabase(target.file);
    try {
      const second = createSqliteAuditLog({ db: other, dataDir: target.dataDir });
      for (let index = 0; index < 20; index++)
        (index % 2 === 0 ? target.log : second).recordDecision(decisionRecord(index));
      expect(second.head()).toEqual(target.log.head());
      expect(await target.log.verify()).toMatchObject({ ok: true, rowCount: 20, head: { sequence: 20 } });
    } finally {
      other.close();
    }
  });
});

describe('recordToolResult', () => {
  it('stores outcome, duration, size and the error message, redacted', () => {
    const entry = target.log.recordToolResult(
      resultRecord(3, {
        error: 'HTTP 401 for token ghp_0123456789abcdefghij0123456789abcd',
        durationMs: 12.5,
        resultBytes: 2048,
      }),
    );
    expect(entry).toMatchObject({
      kind: 'result',
      outcome: 'error',
      durationMs: 12.5,
      resultBytes: 2048,
      error: `HTTP 401 for token ${REDACTED}`,
      decision: null,
      actor: null,
      args: null,
      argsHash: null,
    });
    expect(entry.hash).toBe(expectedHash(entry));
  });
});

describe('append-only', () => {
  it('refuses UPDATE and DELETE through raw SQL with the trigger message, and keeps the rows', () => {
    fillLog(target, 5);
    expect(() => target.db.prepare("UPDATE audit_log SET tool_name = 'x' WHERE sequence = 2").run()).toThrow(
      'audit_log is append-only: a row cannot be changed',
    );
    expect(() => target.db.prepare('DELETE FROM audit_log WHERE sequence = 5').run()).toThrow(
      'audit_log is append-only: a row cannot be deleted',
    );
    expect(() => target.db.prepare('DELETE FROM audit_log').run()).toThrow('append-only');
    expect(target.db.prepare('SELECT count(*) FROM audit_log').pluck().get()).toBe(5);
  });

  it('refuses rows that do not extend the chain, including INSERT OR REPLACE over an old row', () => {
    fillLog(target, 3);
    const [first] = storedRows();
    const values = [...(first ?? [])];
    const insert = (verb: string, row: unknown[]): void => {
      target.db
        .prepare(`${verb} INTO audit_log (${AUDIT_COLUMNS_SQL}) VALUES (${row.map(() => '?').join(', ')})`)
        .run(row);
    };
    expect(() => insert('INSERT OR REPLACE', values)).toThrow(/must take the next sequence number/);
    const head = target.log.head();
    const skip = storedRowOf(values);
    expect(() => insert('INSERT', rowValues({ ...skip, sequence: 5, previousHash: head.hash }))).toThrow(
      /next sequence number/,
    );
    expect(() => insert('INSERT', rowValues({ ...skip, sequence: 4, previousHash: 'f'.repeat(64) }))).toThrow(
      /last row's hash/,
    );
    expect(storedRows()).toHaveLength(3);
  });

  it('keeps the recorded chain head on the last row: it cannot be moved, replaced or deleted', () => {
    fillLog(target, 3);
    const head = target.log.head();
    expect(target.db.prepare('SELECT sequence, hash FROM audit_head').get()).toEqual(head);
    expect(() => target.db.prepare('UPDATE audit_head SET sequence = 2').run()).toThrow(/names the last row/);
    expect(() => target.db.prepare("INSERT OR REPLACE INTO audit_head VALUES (1, 1, 'x')").run()).toThrow(
      /names the last row/,
    );
    expect(() => target.db.prepare('DELETE FROM audit_head').run()).toThrow(/cannot be deleted/);
    expect(target.db.prepare('SELECT sequence, hash FROM audit_head').get()).toEqual(head);
  });

  it('verifies after many inserts', async () => {
    fillLog(target, 600);
    const progress: number[] = [];
    const result = await target.log.verify({ onProgress: (done) => progress.push(done) });
    expect(result).toEqual({ ok: true, rowCount: 600, head: target.log.head() });
    expect(progress.at(-1)).toBe(600);
  });

  it('deleting a chat keeps its audit rows', () => {
    target.db
      .prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run('chat-0', 'x', 1, 1);
    target.log.recordDecision(decisionRecord(0));
    target.db.prepare('DELETE FROM chats WHERE id = ?').run('chat-0');
    expect(target.log.query({ chatId: 'chat-0' }).entries).toHaveLength(1);
  });
});

describe('canonical form of a row', () => {
  const text = fc.string({ unit: 'binary', maxLength: 12 });
  const nullable = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arbitrary, { nil: null });
  const json = nullable(fc.jsonValue({ maxDepth: 2 }).map((value) => canonicalJson(value)));

  it('the fast writer gives exactly canonicalJson of the entry (with and without the hash)', () => {
    fc.assert(
      fc.property(
        fc.record({
          sequence: fc.integer({ min: 1, max: 2 ** 40 }),
          time: text,
          kind: text,
          chatId: text,
          exchangeId: nullable(text),
          toolCallId: text,
          serverName: text,
          toolName: text,
          definitionHash: nullable(text),
          decision: nullable(text),
          actor: nullable(text),
          decidedBy: nullable(text),
          reason: nullable(text),
          args: json,
          argsHash: nullable(text),
          editedArgs: json,
          editedArgsHash: nullable(text),
          outcome: nullable(text),
          durationMs: nullable(fc.double({ noNaN: true, noDefaultInfinity: true })),
          resultBytes: nullable(fc.integer({ min: 0 })),
          error: nullable(text),
          previousHash: text,
          hash: text,
        }),
        (row) => {
          const values = rowValues(row as never);
          const entry = {
            ...row,
            args: row.args === null ? null : JSON.parse(row.args),
            editedArgs: row.editedArgs === null ? null : JSON.parse(row.editedArgs),
          };
          const { hash: _hash, ...content } = entry;
          expect(canonicalRowOf(values)).toBe(canonicalJson(entry));
          expect(canonicalContentOf(values)).toBe(canonicalJson(content));
        },
      ),
      { numRuns: 300 },
    );
  });
});
