// The log's protections (docs/user/audit-log.md): triggers dropped by hand are put back at open and the rows that came
// in without them are named by verify; a log wiped together with its head is not "OK: 0 rows".
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { AUDIT_TRIGGERS } from './audit-guard';
import { fillLog, fillLogFast, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { verifyAuditDatabase } from './audit-verify';
import { createSqliteAuditLog } from './sqlite-audit-log';

let target: TempAuditLog;

beforeEach(() => {
  target = openTempAuditLog('aiwb-guard-');
  fillLog(target, 4);
  // As the host does when it closes: the four rows came in with the protections in place.
  target.log.checkProtections();
});

afterEach(() => target.close());

/** Another process with the file open, as someone with a SQLite shell would be. */
function byHand(change: (db: BetterSqlite3.Database) => void): void {
  const db = new BetterSqlite3(target.file);
  try {
    change(db);
  } finally {
    db.close();
  }
}

/** The app opening the log again (the next start, or the CLI). */
function reopen(): void {
  target.db.close();
  target.clock.now += 60_000;
  target.db = openDatabase(target.file);
  target.log = createSqliteAuditLog({ db: target.db, dataDir: target.dataDir, now: () => target.clock.now });
}

const triggerSql = (db: BetterSqlite3.Database): Record<string, string> =>
  Object.fromEntries(
    db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").raw().all() as [string, string][],
  );

describe('the append-only triggers', () => {
  it('are known exactly as the migrations made them, and a sound log has nothing to say', async () => {
    expect(AUDIT_TRIGGERS.map((trigger) => trigger.name).sort()).toEqual(
      [
        'audit_guard_events_no_delete',
        'audit_guard_events_no_update',
        'audit_head_insert_is_last_row',
        'audit_head_no_delete',
        'audit_head_update_is_last_row',
        'audit_log_counts_rows',
        'audit_log_extends_chain',
        'audit_log_moves_head',
        'audit_log_no_delete',
        'audit_log_no_update',
        'audit_watermark_never_lower',
        'audit_watermark_no_delete',
      ].sort(),
    );
    expect(triggerSql(target.db)).toEqual(
      Object.fromEntries(AUDIT_TRIGGERS.map((trigger) => [trigger.name, trigger.sql])),
    );
    reopen();
    expect(await target.log.verify()).toEqual({ ok: true, rowCount: 4, head: target.log.head() });
  });

  it('dropped by hand, then a row inserted and the file reopened: they are back, and verify names the row that came in without them', async () => {
    byHand((db) => {
      db.exec(
        'DROP TRIGGER audit_log_extends_chain; DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_counts_rows',
      );
      fillLogFast(db, 2); // rows that chain perfectly: the chain alone cannot tell them from the log's own
    });
    expect(await verifyAuditDatabase(target.file)).toMatchObject({ ok: true, rowCount: 6 }); // the chain alone passes: only the log, reopened, names the rows
    reopen();
    const restored = triggerSql(target.db);
    for (const trigger of AUDIT_TRIGGERS) expect(restored[trigger.name]).toBe(trigger.sql);
    expect(() => target.db.prepare("UPDATE audit_log SET tool_name = 'x' WHERE sequence = 1").run()).toThrow(
      /append-only/,
    );

    const result = await target.log.verify();
    expect(result).toMatchObject({ ok: false, rowCount: 4, problem: { sequence: 5, kind: 'unprotected' } });
    if (result.ok) return;
    expect(result.problem.message).toMatch(
      /^Rows 5 to 6 came in while the log's append-only protections were off \(trigger audit_log_no_update was missing; trigger audit_log_extends_chain was missing; trigger audit_log_counts_rows was missing; found and put back at 2026-01-01T12:01:04\.000Z\)/,
    );
    expect(result.notices).toEqual([
      {
        detectedAt: '2026-01-01T12:01:04.000Z',
        firstRow: 5,
        lastRow: 6,
        message: expect.stringContaining('rows 5 to 6 came in without them'),
      },
    ]);

    // Rows appended afterwards, with the triggers back, do not change what is said about 5 and 6.
    fillLog(target, 2);
    reopen();
    expect(await target.log.verify()).toMatchObject({
      ok: false,
      problem: { sequence: 5, kind: 'unprotected' },
      notices: [{ firstRow: 5, lastRow: 6 }],
    });
  });

  it('dropped and a row changed: the chain names the changed row first, and the notice says the triggers were put back', async () => {
    byHand((db) => {
      db.exec('DROP TRIGGER audit_log_no_update');
      db.prepare("UPDATE audit_log SET decided_by = 'someone else' WHERE sequence = 3").run();
    });
    reopen();
    expect(await target.log.verify()).toMatchObject({
      ok: false,
      problem: { sequence: 3, kind: 'content-changed' },
      notices: [
        {
          firstRow: null,
          lastRow: null,
          message: expect.stringMatching(/trigger audit_log_no_update was missing\); no row came in meanwhile\.$/),
        },
      ],
    });
  });

  it('dropped and put back with nothing written meanwhile: OK, with the notice', async () => {
    byHand((db) => db.exec('DROP TRIGGER audit_head_no_delete'));
    reopen();
    expect(await target.log.verify()).toMatchObject({
      ok: true,
      rowCount: 4,
      notices: [{ firstRow: null, message: expect.stringContaining('audit_head_no_delete was missing') }],
    });
  });

  it('altered (the same name, a condition that never holds) counts as missing', async () => {
    byHand((db) => {
      db.exec('DROP TRIGGER audit_log_no_delete');
      db.exec(
        "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log WHEN 0 BEGIN SELECT RAISE(ABORT, 'never'); END",
      );
    });
    reopen();
    expect(triggerSql(target.db).audit_log_no_delete).toBe(
      AUDIT_TRIGGERS.find((trigger) => trigger.name === 'audit_log_no_delete')?.sql,
    );
    expect(await target.log.verify()).toMatchObject({
      ok: true,
      notices: [{ message: expect.stringContaining('trigger audit_log_no_delete was altered') }],
    });
  });
});

describe('the count of rows ever written', () => {
  const wipe = (db: BetterSqlite3.Database): void => {
    db.exec(
      'DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_head_no_delete; DELETE FROM audit_log; DELETE FROM audit_head',
    );
  };

  it('a log wiped together with its head is "empty, but 4 rows were written", not OK', async () => {
    byHand(wipe);
    expect(await verifyAuditDatabase(target.file)).toEqual({
      ok: false,
      rowCount: 0,
      problem: {
        sequence: 1,
        kind: 'missing',
        message: 'The log is empty, but 4 rows were written: it was wiped, together with its head.',
      },
    });
    reopen(); // the triggers go back, the count stays
    expect(await target.log.verify()).toMatchObject({
      ok: false,
      problem: { sequence: 1, kind: 'missing' },
      notices: [{ firstRow: null }],
    });
  });

  it('a log wiped together with its head and the count is not OK, before the next open or after it', async () => {
    byHand((db) => {
      wipe(db);
      db.exec('DROP TRIGGER audit_watermark_no_delete; DELETE FROM audit_watermark');
    });
    expect(await verifyAuditDatabase(target.file)).toMatchObject({
      ok: false,
      rowCount: 0,
      problem: { kind: 'head-mismatch' },
    });
    reopen(); // the count is put back from what is left: 0
    expect(await target.log.verify()).toMatchObject({
      ok: false,
      rowCount: 0,
      problem: {
        kind: 'head-mismatch',
        message: expect.stringMatching(
          /^The count of rows ever written was deleted outside AI Workbench .*may have been wiped/,
        ),
      },
      notices: [{ message: expect.stringContaining('the count of rows ever written was deleted') }],
    });
    reopen(); // and at every later open
    expect(await target.log.verify()).toMatchObject({ ok: false, problem: { kind: 'head-mismatch' } });
  });

  it('rows cut from the end with the head moved back are missing', async () => {
    byHand((db) => {
      db.exec('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE sequence > 2');
      db.exec(
        'UPDATE audit_head SET sequence = 2, hash = (SELECT hash FROM audit_log WHERE sequence = 2) WHERE id = 1',
      );
    });
    expect(await verifyAuditDatabase(target.file)).toMatchObject({
      ok: false,
      rowCount: 2,
      problem: {
        sequence: 3,
        kind: 'missing',
        message: 'Rows 3 to 4 are missing: 4 rows were written, the log ends at row 2.',
      },
    });
  });

  it('cannot be lowered or deleted through SQLite; deleted by hand, it is missed at the next open', async () => {
    expect(() => target.db.prepare('UPDATE audit_watermark SET rows_written = 0').run()).toThrow(/only grows/);
    expect(() => target.db.prepare('DELETE FROM audit_watermark').run()).toThrow(/cannot be deleted/);
    byHand((db) => db.exec('DROP TRIGGER audit_watermark_no_delete; DELETE FROM audit_watermark'));
    expect(await verifyAuditDatabase(target.file)).toMatchObject({
      ok: false,
      problem: { kind: 'head-mismatch', message: expect.stringContaining('count of rows ever written') },
    });
    reopen();
    // Nothing is known about when: every row is in doubt.
    expect(await target.log.verify()).toMatchObject({
      ok: false,
      problem: { sequence: 1, kind: 'unprotected' },
      notices: [
        { firstRow: 1, lastRow: 4, message: expect.stringContaining('the count of rows ever written was deleted') },
      ],
    });
  });

  it('an empty log that never held a row verifies', async () => {
    const fresh = openTempAuditLog('aiwb-guard-empty-');
    try {
      expect(await fresh.log.verify()).toEqual({ ok: true, rowCount: 0, head: { sequence: 0, hash: '0'.repeat(64) } });
    } finally {
      fresh.close();
    }
  });
});
