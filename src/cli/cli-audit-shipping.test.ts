// `workbench audit shipping status` and `workbench audit verify --against`: the built CLI as a child process on a
// temporary data folder, as a security team's script would run it.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditShippingStatus, AuditVerifyAgainstResult } from '../shared/audit-shipping';
import { AUDIT_COLUMNS_SQL, canonicalRowOf } from '../main/audit/audit-row';
import { recordRows } from '../main/audit/shipping/testing/shipping-fixture';
import { createSqliteAuditLog } from '../main/audit/sqlite-audit-log';
import { openDatabase } from '../main/storage/database';
import { cliJson, makeHome, runCli } from './testing/cli-process';

let home: string;
let received: string;
beforeAll(() => {
  home = makeHome();
  const db = openDatabase(path.join(home, 'workbench.db'));
  try {
    recordRows(createSqliteAuditLog({ db, dataDir: home, commitSync: 'normal' }), 20);
    const rows = db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`).raw().all() as unknown[][];
    received = path.join(path.dirname(home), `${path.basename(home)}-received.jsonl`);
    fs.writeFileSync(received, `${rows.map((values) => canonicalRowOf(values)).join('\n')}\n`);
  } finally {
    db.close();
  }
});
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(received, { force: true });
});

const writeSinks = (sinks: unknown[]): void =>
  fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ version: 2, auditShipping: { sinks } }));

describe('workbench audit shipping and verify --against', { timeout: 300_000 }, () => {
  it('shipping status: says when no sink is configured, and shows each sink with its lag', async () => {
    const none = await runCli(['audit', 'shipping', 'status'], { home });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No audit sinks are configured');

    writeSinks([
      { type: 'syslog', id: 'siem', host: '127.0.0.1', port: 9 },
      { type: 'otlp', id: 'otel', enabled: false, endpoint: 'http://127.0.0.1:9/v1/logs' },
    ]);
    const text = await runCli(['audit', 'shipping', 'status'], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/siem\s+syslog\s+shipping\s+#0 of #20\s+20 rows, \d+ s/);
    expect(text.stdout).toMatch(/otel\s+otlp\s+disabled/);
    const json = await cliJson<AuditShippingStatus>(['audit', 'shipping', 'status'], { home });
    expect(json.sinks).toEqual([
      expect.objectContaining({
        id: 'siem',
        type: 'syslog',
        origin: 'settings',
        enabled: true,
        acknowledgedSequence: 0,
        headSequence: 20,
        lagRows: 20,
        lastError: null,
      }),
      expect.objectContaining({ id: 'otel', type: 'otlp', enabled: false, lagRows: 20 }),
    ]);
    // A bad section stops the command, naming the field.
    writeSinks([{ type: 'syslog', id: 'Bad Id', host: '127.0.0.1', port: 514 }]);
    const bad = await runCli(['audit', 'shipping', 'status'], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('auditShipping.sinks.0.id');
    writeSinks([]);
  });

  it('verify --against: OK against what the collector holds; exit code 3 once the local log no longer matches it', async () => {
    const ok = await runCli(['audit', 'verify', '--against', received], { home });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^OK: 20 rows verify; every one of the 20 rows the collector holds \(up to #20\) is in the log unchanged/,
    );

    const db = new BetterSqlite3(path.join(home, 'workbench.db'));
    try {
      db.exec('DROP TRIGGER audit_log_no_update');
      db.prepare("UPDATE audit_log SET decided_by = 'someone else' WHERE sequence = 5").run();
    } finally {
      db.close();
    }
    const broken = await runCli(['audit', 'verify', '--against', received, '--json'], { home });
    expect(broken.code).toBe(3);
    expect(JSON.parse(broken.stdout) as AuditVerifyAgainstResult).toMatchObject({
      ok: false,
      problem: { sequence: 5, kind: 'content-changed' },
      received: { rows: 20 },
    });

    const refused = await runCli(
      ['audit', 'verify', '--against', received, '--anchor-sequence', '1', '--anchor-hash', 'a'.repeat(64)],
      { home },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('use it without --anchor-sequence');
  });
});
