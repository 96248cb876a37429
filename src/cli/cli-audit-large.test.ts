// `workbench audit verify` and `audit export` of the BUILT CLI on a log above every size threshold of
// src/main/audit (at 20,000 rows verification moves to worker threads, whose file the built CLI must find from
// out/main/chunks/: docs/dev/architecture.md, built assets).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditExportResult, AuditVerifyResult } from '../shared/audit';
import { fillLogFast, LARGE_LOG_ROWS } from '../main/audit/audit-test-support';
import { EXPORT_CHUNK_BYTES } from '../main/audit/export-lines';
import { verifyExportFile } from '../main/audit/export-verify';
import { openDatabase, DATABASE_FILE_NAME } from '../main/storage/database';
import { EXIT } from './exit-codes';
import { BIN, makeHome, runCli } from './testing/cli-process';

let home: string;
let out: string;

beforeAll(() => {
  home = makeHome();
  out = fs.mkdtempSync(`${home}-out-`);
  // The CLI's own database, made as the app makes it (migrations and all), filled in one transaction.
  const db = openDatabase(path.join(home, DATABASE_FILE_NAME));
  try {
    fillLogFast(db, LARGE_LOG_ROWS);
  } finally {
    db.close();
  }
}, 60_000);

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

describe('workbench audit on a large log (the built CLI)', { timeout: 120_000 }, () => {
  it(`verifies ${LARGE_LOG_ROWS} rows on worker threads, with progress to 100%`, async () => {
    const result = await runCli(['audit', 'verify', '--json'], {
      home,
      entry: BIN,
      env: { WORKBENCH_SKIP_BUILD: '1' },
    });
    expect(result.stderr).not.toMatch(/Cannot find module/);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout) as AuditVerifyResult).toMatchObject({
      ok: true,
      rowCount: LARGE_LOG_ROWS,
      head: { sequence: LARGE_LOG_ROWS },
    });
    expect(result.stderr).toContain(
      `Verifying… 100% (${LARGE_LOG_ROWS.toLocaleString('en')} of ${LARGE_LOG_ROWS.toLocaleString('en')} rows)`,
    );
  });

  it('names a changed row in a large log (exit 3)', async () => {
    const copy = makeHome();
    try {
      fs.copyFileSync(path.join(home, DATABASE_FILE_NAME), path.join(copy, DATABASE_FILE_NAME));
      const db = openDatabase(path.join(copy, DATABASE_FILE_NAME));
      try {
        db.exec('DROP TRIGGER audit_log_no_update');
        db.prepare('UPDATE audit_log SET result_bytes = result_bytes + 1 WHERE sequence = ?').run(LARGE_LOG_ROWS - 7);
      } finally {
        db.close();
      }
      const result = await runCli(['audit', 'verify', '--json'], { home: copy });
      expect(result.code, result.stderr).toBe(EXIT.verifyFailed);
      expect(JSON.parse(result.stdout) as AuditVerifyResult).toMatchObject({
        ok: false,
        problem: { sequence: LARGE_LOG_ROWS - 7, kind: 'content-changed' },
      });
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it.each(['jsonl', 'csv'] as const)('exports every row as %s, larger than the write buffers', async (format) => {
    const file = path.join(out, `audit.${format}`);
    const result = await runCli(['audit', 'export', '--format', format, '--out', file, '--json'], { home });
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const exported = JSON.parse(result.stdout) as AuditExportResult;
    expect(exported).toMatchObject({ path: file, rowCount: LARGE_LOG_ROWS, head: { sequence: LARGE_LOG_ROWS } });
    expect(exported.bytes).toBe(fs.statSync(file).size);
    expect(exported.bytes).toBeGreaterThan(3 * EXPORT_CHUNK_BYTES);
    if (format === 'jsonl') expect(await verifyExportFile(file)).toMatchObject({ ok: true, rowCount: LARGE_LOG_ROWS });
    else expect(fs.readFileSync(file, 'utf8').trimEnd().split('\r\n')).toHaveLength(LARGE_LOG_ROWS + 2);
  });
});

describe('workbench audit verify: what the log remembers about itself (the built CLI)', { timeout: 120_000 }, () => {
  /** A data folder with five rows, changed by hand as someone with a SQLite shell would. */
  function homeWith(change: (db: ReturnType<typeof openDatabase>) => void): string {
    const small = makeHome();
    const db = openDatabase(path.join(small, DATABASE_FILE_NAME));
    try {
      fillLogFast(db, 5);
      change(db);
    } finally {
      db.close();
    }
    return small;
  }

  it('a log wiped together with its head: "empty, but 5 rows were written", exit 3', async () => {
    const wiped = homeWith((db) =>
      db.exec(
        'DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_head_no_delete; DELETE FROM audit_log; DELETE FROM audit_head',
      ),
    );
    try {
      const result = await runCli(['audit', 'verify'], { home: wiped });
      expect(result.code, result.stderr).toBe(EXIT.verifyFailed);
      expect(result.stdout).toMatch(
        /^BROKEN at row #1 \(missing\): The log is empty, but 5 rows were written: it was wiped, together with its head\./,
      );
      expect(result.stdout).toMatch(
        /WARNING: The log's protections were found changed and put back at .* \(trigger audit_log_no_delete was missing; trigger audit_head_no_delete was missing\); no row came in meanwhile\./,
      );
      expect(result.stderr).toContain('only an anchor kept elsewhere catches that');
    } finally {
      fs.rmSync(wiped, { recursive: true, force: true });
    }
  });

  it('a log wiped together with its head and the count of rows ever written: not "OK: 0 rows", exit 3', async () => {
    const wiped = homeWith((db) =>
      db.exec(
        'DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_head_no_delete; DROP TRIGGER audit_watermark_no_delete; ' +
          'DELETE FROM audit_log; DELETE FROM audit_head; DELETE FROM audit_watermark',
      ),
    );
    try {
      const result = await runCli(['audit', 'verify'], { home: wiped });
      expect(result.code, result.stderr).toBe(EXIT.verifyFailed);
      expect(result.stdout).not.toMatch(/^OK/m);
      expect(result.stdout).toMatch(
        /^BROKEN at row #0 \(head-mismatch\): The count of rows ever written was deleted outside AI Workbench/,
      );
    } finally {
      fs.rmSync(wiped, { recursive: true, force: true });
    }
  });

  it('triggers dropped and a row slipped in: the CLI puts them back and names the row, exit 3', async () => {
    const slipped = homeWith((db) => {
      // The CLI's first open finds the protections in place and checks rows 1–5; then they are dropped.
      db.prepare('UPDATE audit_watermark SET checked_sequence = 5').run();
      db.exec('DROP TRIGGER audit_log_extends_chain');
      fillLogFast(db, 1);
    });
    try {
      const result = await runCli(['audit', 'verify', '--json'], { home: slipped });
      expect(result.code, result.stderr).toBe(EXIT.verifyFailed);
      expect(JSON.parse(result.stdout)).toMatchObject({
        ok: false,
        rowCount: 5,
        problem: { sequence: 6, kind: 'unprotected' },
        notices: [{ firstRow: 6, lastRow: 6 }],
      });
      const db = openDatabase(path.join(slipped, DATABASE_FILE_NAME));
      try {
        expect(
          db
            .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'audit_log_extends_chain'")
            .pluck()
            .get(),
        ).toBe(1);
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(slipped, { recursive: true, force: true });
    }
  });
});
