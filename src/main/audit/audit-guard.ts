import type { AuditHead, AuditNotice, AuditProblem, AuditVerifyResult } from '../../shared/audit';
import type { Database } from '../storage/database';
import { migrations } from '../storage/migrations';

/**
 * What the audit log remembers about itself, and the check that keeps it (docs/user/audit-log.md,
 * docs/dev/audit-durability.md).
 *
 * The append-only triggers are what stop a row from being changed or removed through SQLite; whoever can
 * write the file can drop them. So at every open and close of the log they are compared with the ones the
 * migrations created, put back when missing or altered, and the fact is recorded (`audit_guard_events`)
 * with the rows that came in since the last check that found them in place: `audit verify` names those
 * rows, which nothing vouches for. Beside the head, `audit_watermark` keeps the count of rows ever
 * written, so a log wiped together with its head reads "empty, but N rows were written", not "OK: 0 rows".
 *
 * All of this lives in the same file as the log. Someone who rewrites the log, its head, the count and the
 * records here, and puts every trigger back, leaves a log that verifies: only an anchor kept elsewhere (the
 * head of an export that was shipped off the machine, `audit verify --anchor-…`) catches that.
 */

/** What a guard event says when the count was gone: from then on, nothing shows how many rows the log held. */
const COUNT_DELETED = 'the count of rows ever written was deleted';

interface SchemaStatement {
  name: string;
  sql: string;
}

const MIGRATIONS_SQL = migrations.join('\n');

/** Every trigger on an audit table, exactly as the migrations created it (as sqlite_master keeps it). */
export const AUDIT_TRIGGERS: readonly SchemaStatement[] = [
  ...MIGRATIONS_SQL.matchAll(/CREATE TRIGGER (\w+) [^\n]* ON audit_\w+[\s\S]*?\bEND(?=;)/g),
].map((match) => ({ name: match[1] as string, sql: match[0] }));

/** The tables the guard needs (and the head, which verify reads), as the migrations created them. */
const GUARD_TABLES: readonly SchemaStatement[] = [
  ...MIGRATIONS_SQL.matchAll(/CREATE TABLE (audit_head|audit_watermark|audit_guard_events) \([\s\S]*?\) STRICT(?=;)/g),
].map((match) => ({ name: match[1] as string, sql: match[0] }));

/** One time the protections were found missing or altered and put back. */
export interface AuditGuardEvent {
  detectedAt: string;
  /** What was found, in words. */
  what: string;
  /** The last row known to have come in with the protections in place; null when not known (every row is in doubt). */
  afterSequence: number | null;
  /** The last row when it was found. */
  throughSequence: number;
}

/**
 * Compares the protections with the migrations', puts back what is missing or altered (one transaction),
 * records that as an event when anything was, and moves the checked point to the last row. Answers the event, if any.
 */
export function guardAuditLog(db: Database, now: () => number = Date.now): AuditGuardEvent | null {
  const check = db.transaction((): AuditGuardEvent | null => {
    const found: string[] = [];
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    for (const table of GUARD_TABLES) {
      if (tables.has(table.name)) continue;
      found.push(`table ${table.name} was dropped`);
      db.exec(table.sql);
    }
    const triggers = new Map(
      db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").raw().all() as [string, string][],
    );
    for (const trigger of AUDIT_TRIGGERS) {
      const sql = triggers.get(trigger.name);
      if (sql === trigger.sql) continue;
      found.push(`trigger ${trigger.name} was ${sql === undefined ? 'missing' : 'altered'}`);
      if (sql !== undefined) db.exec(`DROP TRIGGER "${trigger.name}"`);
      db.exec(trigger.sql);
    }
    const last = (db.prepare('SELECT coalesce(max(sequence), 0) FROM audit_log').pluck().get() as number) ?? 0;
    const time = new Date(now()).toISOString();
    let mark = db
      .prepare(
        'SELECT rows_written AS rowsWritten, checked_sequence AS checkedSequence FROM audit_watermark WHERE id = 1',
      )
      .get() as { rowsWritten: number; checkedSequence: number | null } | undefined;
    if (!mark) {
      found.push(COUNT_DELETED);
      db.prepare(
        'INSERT INTO audit_watermark (id, rows_written, checked_sequence, checked_at) VALUES (1, ?, NULL, NULL)',
      ).run(last);
      mark = { rowsWritten: last, checkedSequence: null };
    }
    let event: AuditGuardEvent | null = null;
    if (found.length > 0) {
      event = { detectedAt: time, what: found.join('; '), afterSequence: mark.checkedSequence, throughSequence: last };
      db.prepare(
        'INSERT INTO audit_guard_events (detected_at, what, after_sequence, through_sequence) VALUES (?, ?, ?, ?)',
      ).run(event.detectedAt, event.what, event.afterSequence, event.throughSequence);
    }
    // Rows written while the counting trigger was gone still count.
    db.prepare(
      'UPDATE audit_watermark SET rows_written = max(rows_written, ?), checked_sequence = ?, checked_at = ? WHERE id = 1',
    ).run(last, last, time);
    return event;
  });
  return check.immediate();
}

/** What verify reads of the guard's records, in its snapshot; null members when the tables are gone. */
export interface AuditGuardState {
  rowsWritten: number | null;
  events: AuditGuardEvent[];
}

export function readGuardState(db: Pick<Database, 'prepare'>): AuditGuardState {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  const rowsWritten = tables.has('audit_watermark')
    ? ((db.prepare('SELECT rows_written FROM audit_watermark WHERE id = 1').pluck().get() as number | undefined) ??
      null)
    : null;
  const events = tables.has('audit_guard_events')
    ? (db
        .prepare(
          'SELECT detected_at AS detectedAt, what, after_sequence AS afterSequence, through_sequence AS throughSequence FROM audit_guard_events ORDER BY id',
        )
        .all() as AuditGuardEvent[])
    : [];
  return { rowsWritten, events };
}

/** The rows an event leaves in doubt (first and last), or null when none came in meanwhile. */
function rowsInDoubt(event: AuditGuardEvent): { first: number; last: number } | null {
  const first = (event.afterSequence ?? 0) + 1;
  return first <= event.throughSequence ? { first, last: event.throughSequence } : null;
}

function noticeOf(event: AuditGuardEvent): AuditNotice {
  const rows = rowsInDoubt(event);
  const which =
    rows === null
      ? 'no row came in meanwhile'
      : rows.first === rows.last
        ? `row ${rows.first} came in without them`
        : `rows ${rows.first} to ${rows.last} came in without them`;
  return {
    detectedAt: event.detectedAt,
    message: `The log's protections were found changed and put back at ${event.detectedAt} (${event.what}); ${which}.`,
    firstRow: rows?.first ?? null,
    lastRow: rows?.last ?? null,
  };
}

/**
 * The chain's verdict, completed with what the guard knows: a log shorter than the rows ever written is
 * broken (a wipe, or rows cut from the end with the head moved back), and rows that came in while the
 * protections were off are broken too, since anyone could have written them in place. The chain's own
 * first problem, when there is one, comes first. Every guard event is listed as a notice either way.
 */
export function withGuardState(result: AuditVerifyResult, state: AuditGuardState, last: AuditHead): AuditVerifyResult {
  const notices = state.events.map(noticeOf);
  const withNotices = <T extends AuditVerifyResult>(value: T): T =>
    notices.length > 0 ? { ...value, notices } : value;
  if (!result.ok) return withNotices(result);
  const problem = guardProblem(state, last);
  if (!problem) return withNotices(result);
  return withNotices({ ok: false, rowCount: Math.min(result.rowCount, Math.max(0, problem.sequence - 1)), problem });
}

function guardProblem(state: AuditGuardState, last: AuditHead): AuditProblem | null {
  if (state.rowsWritten === null) {
    return {
      sequence: last.sequence,
      kind: 'head-mismatch',
      message: 'The count of rows ever written, kept beside the head, is gone: it was deleted outside AI Workbench.',
    };
  }
  if (state.rowsWritten > last.sequence) {
    const message =
      last.sequence === 0
        ? `The log is empty, but ${state.rowsWritten} rows were written: it was wiped, together with its head.`
        : `Rows ${last.sequence + 1} to ${state.rowsWritten} are missing: ${state.rowsWritten} rows were written, the log ends at row ${last.sequence}.`;
    return { sequence: last.sequence + 1, kind: 'missing', message };
  }
  for (const event of state.events) {
    const rows = rowsInDoubt(event);
    if (!rows) continue;
    const which = rows.first === rows.last ? `Row ${rows.first}` : `Rows ${rows.first} to ${rows.last}`;
    return {
      sequence: rows.first,
      kind: 'unprotected',
      message: `${which} came in while the log's append-only protections were off (${event.what}; found and put back at ${event.detectedAt}): their place in the chain proves nothing, anyone could have written them.`,
    };
  }
  // A count put back from what was left vouches for nothing: the rows, the head and the count may all have gone together.
  const countLost = state.events.find((event) => event.what.includes(COUNT_DELETED));
  if (countLost) {
    return {
      sequence: last.sequence,
      kind: 'head-mismatch',
      message: `The count of rows ever written was deleted outside AI Workbench (found and put back at ${countLost.detectedAt}): nothing shows how many rows the log held, so it may have been wiped or cut short.`,
    };
  }
  return null;
}
