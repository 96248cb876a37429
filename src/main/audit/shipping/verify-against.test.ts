// `audit verify --against`: the local chain checked against what a collector received. The local log is
// tampered with the way its owner could (triggers dropped, rows removed or rewritten, the chain recomputed
// so that `audit verify` alone passes); the shipped copy still tells.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_COLUMNS_SQL,
  canonicalRowOf,
  GENESIS_HASH,
  HASH_INDEX,
  hashOfStoredRow,
  PREVIOUS_HASH_INDEX,
} from '../audit-row';
import { openTempAuditLog, type TempAuditLog } from '../audit-test-support';
import { syslogMessage } from './syslog-message';
import { recordRows } from './testing/shipping-fixture';
import { createReceivedVerifier } from './verify-against';

/** Every trigger that guards the log (the append-only ones and the count of rows ever written), as SQLite holds them. */
const guardTriggers = (): Array<{ name: string; sql: string }> =>
  temp.db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('audit_log', 'audit_head', 'audit_watermark')",
    )
    .all() as Array<{ name: string; sql: string }>;

let temp: TempAuditLog;
beforeEach(() => {
  temp = openTempAuditLog('aiwb-verify-against-');
  recordRows(temp.log, 300);
});
afterEach(() => temp.close());

const storedRows = (): unknown[][] =>
  temp.db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`).raw().all() as unknown[][];
const identity = { facility: 13, hostname: 'laptop', procId: '42' };

/**
 * What rsyslog's raw-message file holds: one message per line (rsyslog writes a control character received,
 * such as the newline in a reason's structured-data value, as `#012`), other traffic mixed in.
 */
function rsyslogFile(rows: unknown[][], name = 'received.log'): string {
  const file = path.join(temp.dir, name);
  const lines = rows.map((values) => syslogMessage(values, identity).replace(/\n/g, '#012'));
  lines.splice(10, 0, '<30>1 2026-01-01T00:00:00Z laptop cron 7 - - (root) CMD (run-parts /etc/cron.hourly)');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function jsonlFile(rows: unknown[][], name = 'received.jsonl'): string {
  const file = path.join(temp.dir, name);
  fs.writeFileSync(file, `${rows.map((values) => canonicalRowOf(values)).join('\n')}\n`);
  return file;
}

const verifier = () => createReceivedVerifier({ db: temp.db, audit: temp.log });

/**
 * The owner's tampering, done as well as it can be done locally: every guarding trigger dropped, then `change`, then
 * every hash from `from` on recomputed, the head moved, the count of rows ever written lowered to match, and the
 * triggers put back as they were, so that `audit verify` alone passes.
 */
function tamper(change: () => void, from: number): void {
  const triggers = guardTriggers();
  for (const trigger of triggers) temp.db.exec(`DROP TRIGGER ${trigger.name}`);
  change();
  const rows = storedRows();
  const update = temp.db.prepare('UPDATE audit_log SET previous_hash = ?, hash = ? WHERE sequence = ?');
  let previous = from === 1 ? GENESIS_HASH : (rows[from - 2]?.[HASH_INDEX] as string);
  for (const values of rows.slice(from - 1)) {
    values[PREVIOUS_HASH_INDEX] = previous;
    previous = hashOfStoredRow(values);
    update.run(values[PREVIOUS_HASH_INDEX], previous, values[0]);
  }
  const last = rows.at(-1) as unknown[];
  temp.db.prepare('UPDATE audit_head SET sequence = ?, hash = ?').run(last[0], previous);
  temp.db.prepare('UPDATE audit_watermark SET rows_written = ?').run(last[0]);
  for (const trigger of triggers) temp.db.exec(trigger.sql);
}

describe('audit verify --against a file of shipped rows', () => {
  it('passes when every row the collector holds is in the log unchanged: an rsyslog file with duplicates and other traffic, or JSONL', async () => {
    const rows = storedRows();
    // At least once: rows 101–150 arrived twice; rows after 280 were not shipped yet.
    const file = rsyslogFile([...rows.slice(0, 150), ...rows.slice(100, 280)]);
    const result = await verifier().verifyAgainst(file);
    expect(result).toMatchObject({
      ok: true,
      rowCount: 300,
      head: { sequence: 300 },
      received: { rows: 280, lastSequence: 280, duplicates: 50, otherLines: 1, cutOff: 0, notReceived: 0 },
    });
    expect(await verifier().verifyAgainst(jsonlFile(rows))).toMatchObject({
      ok: true,
      received: { rows: 300, lastSequence: 300 },
    });
  });

  it('names a truncated tail: rows the collector holds that the log no longer has, though audit verify alone passes', async () => {
    const file = rsyslogFile(storedRows());
    tamper(() => temp.db.prepare('DELETE FROM audit_log WHERE sequence > 250').run(), 251);
    expect(await temp.log.verify()).toMatchObject({ ok: true, rowCount: 250 });
    const result = await verifier().verifyAgainst(file);
    expect(result).toMatchObject({ ok: false, rowCount: 250, problem: { sequence: 251, kind: 'missing', line: 252 } });
    expect(result.ok ? '' : result.problem.message).toMatch(
      /local log ends at #250: rows were removed from its end \(a truncated tail\)/,
    );
  });

  it('names a recomputed chain: a row rewritten after it was shipped, every hash after it recomputed', async () => {
    const file = jsonlFile(storedRows());
    tamper(
      () => temp.db.prepare("UPDATE audit_log SET decided_by = 'policy: auto-approve' WHERE sequence = 120").run(),
      120,
    );
    expect(await temp.log.verify()).toMatchObject({ ok: true, rowCount: 300 });
    const result = await verifier().verifyAgainst(file);
    expect(result).toMatchObject({ ok: false, problem: { sequence: 120, kind: 'anchor-mismatch', line: 120 } });
    expect(result.ok ? '' : result.problem.message).toMatch(
      /not the row that was shipped .*recomputed after it was shipped/,
    );
  });

  it('names a row removed from the middle and the rest renumbered', async () => {
    const file = rsyslogFile(storedRows());
    tamper(() => {
      temp.db.prepare('DELETE FROM audit_log WHERE sequence = 77').run();
      temp.db.prepare('UPDATE audit_log SET sequence = -(sequence - 1) WHERE sequence > 77').run();
      temp.db.prepare('UPDATE audit_log SET sequence = -sequence WHERE sequence < 0').run();
    }, 77);
    expect(await temp.log.verify()).toMatchObject({ ok: true, rowCount: 299 });
    expect(await verifier().verifyAgainst(file)).toMatchObject({
      ok: false,
      problem: { sequence: 77, kind: 'anchor-mismatch' },
    });
  });

  it("names a collector's copy altered in transit, and two different rows shipped under one sequence", async () => {
    const rows = storedRows();
    const altered = jsonlFile(rows);
    const lines = fs.readFileSync(altered, 'utf8').split('\n');
    lines[41] = (lines[41] as string).replace('"kind":"result"', '"kind":"decision"');
    fs.writeFileSync(altered, lines.join('\n'));
    expect(await verifier().verifyAgainst(altered)).toMatchObject({
      ok: false,
      problem: { sequence: 42, kind: 'content-changed', line: 42 },
    });

    const forged = rows.map((values) => [...values]);
    const other = forged[199] as unknown[];
    other[AUDIT_COLUMNS_SQL.split(', ').indexOf('decided_by')] = 'someone else';
    other[HASH_INDEX] = hashOfStoredRow(other);
    const twice = jsonlFile([...rows, other], 'twice.jsonl');
    const result = await verifier().verifyAgainst(twice);
    expect(result).toMatchObject({ ok: false, problem: { sequence: 200, kind: 'anchor-mismatch', line: 301 } });
    expect(result.ok ? '' : result.problem.message).toMatch(/two different rows #200 \(lines 200 and 301\)/);
  });

  it('refuses a relative path and a missing file by name; a file without audit rows fails (it anchors nothing) and its text is never echoed', async () => {
    await expect(verifier().verifyAgainst('received.log')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(verifier().verifyAgainst(path.join(temp.dir, 'nope.log'))).rejects.toMatchObject({
      code: 'not_found',
    });
    const secret = path.join(temp.dir, 'id_rsa');
    fs.writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n');
    const result = await verifier().verifyAgainst(secret);
    expect(result).toMatchObject({
      ok: false,
      problem: { kind: 'malformed', message: expect.stringMatching(/holds no shipped audit rows/) },
      received: { rows: 0, otherLines: 2 },
    });
    expect(JSON.stringify(result)).not.toContain('OPENSSH');
  });
});
