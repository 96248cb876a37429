/**
 * Who asked, as its own audit column (docs/user/audit-log.md#requested-by), on a real database file an earlier
 * version wrote (test-fixtures/audit-before-requested-by.db: a model call, an app call and a CSP refusal, a sampling
 * and an elicitation request, a policy change, written before the column existed). Opened by this version it is
 * migrated; its rows verify as they were written, their requester is derived from what their hash covers, and rows
 * written now carry it in the column and in their hash.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../services';
import { verifyAuditDatabase } from './audit-verify';

const OLD = fileURLToPath(new URL('./test-fixtures/audit-before-requested-by.db', import.meta.url));

let dir: string;
let services: Services | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-requested-by-'));
  fs.copyFileSync(OLD, path.join(dir, 'workbench.db'));
});
afterEach(() => {
  services?.close();
  services = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const open = (): Services => {
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', managedPolicyFile: null });
  return services;
};
const sequences = (s: Services, requestedBy: 'model' | 'app' | 'server'): number[] =>
  s.audit
    .query({ requestedBy, limit: 500 })
    .entries.map((entry) => entry.sequence)
    .sort((a, b) => a - b);

describe('requested_by on a log written before it', () => {
  it('is migrated: old rows verify unchanged and read with their requester; new rows carry it in the column', async () => {
    const before = new BetterSqlite3(OLD, { readonly: true });
    expect(before.pragma('user_version', { simple: true })).toBe(10);
    before.close();

    const s = open();
    expect(await s.audit.verify()).toMatchObject({ ok: true, rowCount: 8 });
    expect(sequences(s, 'model')).toEqual([1, 2]);
    expect(sequences(s, 'app')).toEqual([3, 4, 5]);
    expect(sequences(s, 'server')).toEqual([6, 7]);
    const policy = s.audit.query({ kind: 'policy' }).entries[0];
    expect(policy?.sequence).toBe(8);
    expect(policy && 'requestedBy' in policy).toBe(false);

    // Written now: the column says who asked, whatever the call id looks like.
    const call = { chatId: 'chat-2', serverName: 'Clock', toolName: 'get-time', args: {} };
    s.audit.recordDecision({
      ...call,
      toolCallId: 'c-model',
      decision: 'auto_allow',
      actor: 'policy',
      decidedBy: 'rule',
    });
    const byApp = s.audit.recordDecision({
      ...call,
      toolCallId: 'c-app',
      requestedBy: 'app',
      decision: 'auto_deny',
      actor: 'system',
      decidedBy: 'refused',
    });
    expect(byApp.requestedBy).toBe('app');
    expect(sequences(s, 'app')).toEqual([3, 4, 5, 10]);
    expect(sequences(s, 'model')).toEqual([1, 2, 9]);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rowCount: 10 });

    const file = s.databaseFile;
    s.close();
    services = undefined;
    const db = new BetterSqlite3(file);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(11);
    // Old rows are not rewritten (append-only): NULL; new rows hold it.
    expect(db.prepare('SELECT sequence, requested_by FROM audit_log ORDER BY sequence').raw().all()).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, null],
      [5, null],
      [6, null],
      [7, null],
      [8, null],
      [9, 'model'],
      [10, 'app'],
    ]);
    // The column is in the hash of the rows written with it: changed, the row no longer verifies.
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare("UPDATE audit_log SET requested_by = 'model' WHERE sequence = 10").run();
    db.close();
    const tampered = await verifyAuditDatabase(file);
    expect(tampered).toMatchObject({ ok: false, problem: { sequence: 10, kind: 'content-changed' } });
  });

  it('goes with the export: JSONL lines of rows written with it carry it, older lines are as they were', async () => {
    const s = open();
    s.audit.recordDecision({
      chatId: 'chat-2',
      serverName: 'Clock',
      toolName: 'get-time',
      args: {},
      toolCallId: 'app:x',
      requestedBy: 'app',
      decision: 'auto_deny',
      actor: 'system',
      decidedBy: 'refused',
    });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-requested-by-out-'));
    const target = path.join(out, 'log.jsonl');
    await s.audit.export({ format: 'jsonl', path: target });
    const lines = fs
      .readFileSync(target, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sequence?: number; requestedBy?: string });
    const rows = lines.filter((line) => typeof line.sequence === 'number');
    fs.rmSync(out, { recursive: true, force: true });
    expect(rows.map((row) => row.requestedBy ?? null)).toEqual([null, null, null, null, null, null, null, null, 'app']);
  });
});
