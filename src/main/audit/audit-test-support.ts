// Helpers shared by the audit log's tests (not part of the app).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditDecision } from '../../shared/audit';
import { openDatabase, type Database } from '../storage/database';
import type { AuditLog, DecisionRecord, ToolResultRecord } from './audit-log';
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
  return {
    dir,
    dataDir,
    file,
    db,
    log,
    clock,
    close: () => {
      if (db.open) db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const DECISIONS: readonly AuditDecision[] = ['allow_once', 'allow_session', 'deny', 'timeout', 'auto_allow', 'auto_deny', 'session_grant', 'cancelled'];

/** Which call sample `index` is about: three chats, two servers with one tool each. */
function sampleCall(index: number): Pick<DecisionRecord, 'chatId' | 'exchangeId' | 'toolCallId' | 'serverName' | 'toolName'> {
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
