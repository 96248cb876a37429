// Helpers shared by the audit log's tests (not part of the app).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditDecision } from '../../shared/audit';
import { openDatabase, type Database } from '../storage/database';
import type { AuditLog, DecisionRecord, ToolResultRecord } from './audit-log';
import { ROWS_PER_PROGRESS, ROWS_PER_SLICE } from './audit-reader';
import { PARALLEL_FROM_ROWS } from './parallel-verify';
import { RANGE_PROGRESS_EVERY } from './range-check';
import {
  AUDIT_INSERT_SQL,
  GENESIS_HASH,
  HASH_INDEX,
  hashOfStoredRow,
  NO_DECISION,
  rowValues,
  type StoredAuditRow,
} from './audit-row';
import { createSqliteAuditLog } from './sqlite-audit-log';

export interface TempAuditLog {
  dir: string;
  dataDir: string;
  file: string;
  db: Database;
  log: AuditLog;
  /** The clock the log reads; tests move it. */
  clock: { now: number };
  close(): void;
}

/** A fresh data folder with a real database file and an audit log over it. */
export function openTempAuditLog(prefix = 'aiwb-audit-'): TempAuditLog {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dataDir = path.join(dir, 'data');
  const file = path.join(dataDir, 'workbench.db');
  const db = openDatabase(file);
  const clock = { now: Date.UTC(2026, 0, 1, 12, 0, 0) };
  const log = createSqliteAuditLog({ db, dataDir, now: () => clock.now });
  const target: TempAuditLog = {
    dir,
    dataDir,
    file,
    db,
    log,
    clock,
    close: () => {
      // The database a test reopened, if it did.
      if (target.db.open) target.db.close();
      if (db.open) db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return target;
}

const DECISIONS: readonly AuditDecision[] = [
  'allow_once',
  'allow_session',
  'deny',
  'timeout',
  'auto_allow',
  'auto_deny',
  'session_grant',
  'cancelled',
];

/** Which call sample `index` is about: three chats, two servers with one tool each. */
function sampleCall(
  index: number,
): Pick<DecisionRecord, 'chatId' | 'exchangeId' | 'toolCallId' | 'serverName' | 'toolName'> {
  return {
    chatId: `chat-${index % 3}`,
    exchangeId: `exchange-${Math.floor(index / 4)}`,
    toolCallId: `call-${index}`,
    serverName: index % 2 === 0 ? 'Files' : 'Web',
    toolName: index % 2 === 0 ? 'read_file' : 'fetch',
  };
}

export function decisionRecord(index: number, overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  const decision = DECISIONS[index % DECISIONS.length] ?? 'allow_once';
  return {
    ...sampleCall(index),
    definitionHash: 'd'.repeat(64),
    decision,
    actor: decision.startsWith('auto') ? 'policy' : decision === 'timeout' ? 'system' : 'user',
    decidedBy: `rule ${index}`,
    reason: index % 5 === 0 ? `because ${index}` : undefined,
    args: { path: `/tmp/file-${index}.txt`, nested: { depth: [index, { apiKey: `secret-${index}` }] } },
    ...overrides,
  };
}

export function resultRecord(index: number, overrides: Partial<ToolResultRecord> = {}): ToolResultRecord {
  return {
    ...sampleCall(index),
    outcome: index % 3 === 0 ? 'error' : 'success',
    durationMs: index * 1.25,
    resultBytes: index * 100,
    error: index % 3 === 0 ? `failed ${index}` : undefined,
    ...overrides,
  };
}

/** Appends `count` rows, decisions and results alternating, one clock second apart. */
export function fillLog(target: TempAuditLog, count: number): void {
  for (let index = 0; index < count; index++) {
    target.clock.now += 1000;
    if (index % 2 === 0) target.log.recordDecision(decisionRecord(index));
    else target.log.recordToolResult(resultRecord(index));
  }
}

/**
 * A log above every size threshold of src/main/audit: the switch to worker threads (PARALLEL_FROM_ROWS),
 * the rows per event-loop slice and per progress report, a worker's progress reports; odd, so the worker
 * slices differ in size. Its export (about 300 bytes a row) is also several times the export's write
 * buffers and the download's read chunk (1 MiB each), which the tests that use it check on the file.
 */
export const LARGE_LOG_ROWS =
  Math.max(PARALLEL_FROM_ROWS, ROWS_PER_SLICE, ROWS_PER_PROGRESS, RANGE_PROGRESS_EVERY) + 1001;

/**
 * Appends `rows` result rows to the log in `db` in ONE transaction, chained exactly as the log chains them
 * (the append-only triggers check each one): 20,000 rows take about a second, where the log's own
 * per-row durable commits would take minutes. For tests of large logs (the size thresholds of verify and export).
 */
export function fillLogFast(db: Pick<Database, 'prepare' | 'transaction'>, rows: number): void {
  const insert = db.prepare(AUDIT_INSERT_SQL);
  const last = db.prepare('SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1');
  db.transaction(() => {
    const tail = (last.get() as { sequence: number; hash: string } | undefined) ?? { sequence: 0, hash: GENESIS_HASH };
    let previousHash = tail.hash;
    for (let sequence = tail.sequence + 1; sequence <= tail.sequence + rows; sequence++) {
      const row: StoredAuditRow = {
        sequence,
        time: new Date(Date.UTC(2026, 0, 1) + sequence).toISOString(),
        kind: 'result',
        requestedBy: 'model',
        chatId: `chat-${sequence % 7}`,
        exchangeId: null,
        toolCallId: `call-${sequence}`,
        serverName: 'Files',
        toolName: 'read_file',
        definitionHash: null,
        ...NO_DECISION,
        outcome: 'success',
        durationMs: sequence / 8,
        resultBytes: sequence,
        error: null,
        previousHash,
        hash: '',
      };
      const values = rowValues(row);
      previousHash = hashOfStoredRow(values);
      values[HASH_INDEX] = previousHash;
      insert.run(values);
    }
  })();
}
