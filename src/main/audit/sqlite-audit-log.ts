import type { KeyObject } from 'node:crypto';
import type { AuditEntry, AuditHead } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import type { Database } from '../storage/database';
import { exportAuditLog } from './audit-export';
import { guardAuditLog } from './audit-guard';
import type {
  AuditLog,
  DecisionRecord,
  PolicyChangeRecord,
  ServerRequestRecord,
  TaskRecord,
  ToolResultRecord,
} from './audit-log';
import { checkCheckpoint, checkpointArgs, signCheckpoint, type CheckpointKey } from './checkpoint';
import { createAuditQuery } from './audit-query';
import { checkDecisionRecord, checkPolicyChangeRecord, checkTaskRecord, checkToolResultRecord } from './audit-records';

/** A task row's "decided by" words (docs/user/audit-log.md#task-rows). */
const TASK_EVENT_WORDS: Record<TaskRecord['event'], string> = {
  started: 'task started on the server',
  'cancel-requested': 'cancel of the task asked for',
  ended: 'task ended',
};
import {
  AUDIT_INSERT_SQL,
  entryOf,
  GENESIS_HASH,
  NO_DECISION,
  NO_RESULT,
  sealRow,
  sha256Hex,
  type StoredAuditRow,
} from './audit-row';
import { derivedRequester } from './requested-by';
import { verifyAuditDatabase } from './audit-verify';
import { redactValue } from './redact';
import { keyedArgsHash, loadArgsHashKey } from './args-hash';

export interface SqliteAuditLogOptions {
  /** The app's database, with the audit migration applied. */
  db: Database;
  /** The data folder: exports may not be written into it (the database, settings and secrets live there). */
  dataDir: string;
  now?: () => number;
  /**
   * How each row's commit is synced. Always `full` in the app; `normal` exists only so the audit-commit
   * benchmark can measure what FULL costs against the same code path.
   */
  commitSync?: 'full' | 'normal';
  /** The built audit-worker script: verification of a large log then uses one thread per core. */
  workerFile?: string | undefined;
  /** The public key of this log's signed checkpoints (checkpoint.ts), when it has one. */
  checkpointPublicKey?: (() => KeyObject | null) | undefined;
}

/** The audit log of the app's database, which can also sign checkpoints (checkpoint.ts). */
export interface SqliteAuditLog extends AuditLog {
  /** Appends a checkpoint row signing the head before it, under the same write lock as every row. */
  recordCheckpoint(key: CheckpointKey): AuditEntry;
}

/** A row before it takes its place in the chain. */
type RowContent = Omit<StoredAuditRow, 'sequence' | 'time' | 'previousHash' | 'hash'>;

const SYNCHRONOUS = { normal: 1, full: 2 } as const;

/** The audit log in the app's SQLite database (migration 2): append-only, hash-chained, durable per row. */
export function createSqliteAuditLog({
  db,
  dataDir,
  now = Date.now,
  commitSync = 'full',
  workerFile,
  checkpointPublicKey,
}: SqliteAuditLogOptions): SqliteAuditLog {
  // Before anything is appended: triggers dropped by hand are put back, and the rows that came in without them recorded.
  guardAuditLog(db, now);
  // The install's key for the arguments hash (args-hash.ts): read or made before the first row.
  const argsKey = loadArgsHashKey(dataDir);
  const argumentColumns = (args: Record<string, unknown>): { stored: string; hash: string } =>
    argumentColumnsOf(args, argsKey);
  const lastRow = db.prepare('SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1');
  const insert = db.prepare(AUDIT_INSERT_SQL);
  const query = createAuditQuery(db);

  const readHead = (): AuditHead => (lastRow.get() as AuditHead | undefined) ?? { sequence: 0, hash: GENESIS_HASH };

  const checkpointRows = db.prepare(
    "SELECT sequence, previous_hash AS previousHash, args FROM audit_log WHERE kind = 'checkpoint' AND sequence <= ? ORDER BY sequence",
  );

  // Sequence, time and previous hash are taken under the write lock (BEGIN IMMEDIATE), so two
  // processes appending at once (the app and the CLI) still build one gapless chain.
  const append = db.transaction((content: RowContent | ((tail: AuditHead) => RowContent)): StoredAuditRow => {
    const tail = readHead();
    if (typeof content === 'function') content = content(tail);
    const row: StoredAuditRow = {
      ...content,
      sequence: tail.sequence + 1,
      time: new Date(now()).toISOString(),
      previousHash: tail.hash,
      hash: '',
    };
    insert.run(sealRow(row));
    return row;
  });

  const durably = <T>(work: () => T): T => {
    if (db.inTransaction) {
      throw new Error(
        'The audit log commits each row on its own: it cannot be written inside another transaction, which would leave the row uncommitted when the call returns.',
      );
    }
    // FULL syncs the WAL at this commit, so the row survives a power cut, not only a crash of the app.
    // The rest of the app keeps NORMAL; the setting is per connection and restored at once.
    const previous = db.pragma('synchronous', { simple: true }) as number;
    db.pragma(`synchronous = ${SYNCHRONOUS[commitSync]}`);
    try {
      return work();
    } finally {
      db.pragma(`synchronous = ${previous}`);
    }
  };
  const commit = (content: RowContent | ((tail: AuditHead) => RowContent)): AuditEntry =>
    durably(() => entryOf(append.immediate(content)));
  /** True while recordDecisionsWith runs its claim: a policy row recorded then belongs to that transaction. */
  let claiming = false;
  const decisionRow = (record: DecisionRecord): RowContent => {
    checkDecisionRecord(record);
    const args = argumentColumns(record.args);
    const edited = record.editedArgs === undefined ? null : argumentColumns(record.editedArgs);
    return {
      ...callFields(record),
      kind: 'decision',
      decision: record.decision,
      actor: record.actor,
      decidedBy: wellFormed(record.decidedBy),
      reason: record.reason === undefined ? null : storedText(record.reason),
      args: args.stored,
      argsHash: args.hash,
      editedArgs: edited?.stored ?? null,
      editedArgsHash: edited?.hash ?? null,
      ...NO_RESULT,
    };
  };

  const serverRequestRow = ({ kind, ...record }: ServerRequestRecord): RowContent => ({
    ...decisionRow({ ...record, requestedBy: record.requestedBy ?? 'server' }),
    kind,
  });

  /** A policy row: who changed what; the values before and after, redacted, in the argument columns (hashed whole). */
  const policyRow = (record: PolicyChangeRecord): RowContent => {
    checkPolicyChangeRecord(record);
    const before = argumentColumns(record.before);
    const after = argumentColumns(record.after);
    return {
      kind: 'policy',
      chatId: wellFormed(record.chatId ?? ''),
      exchangeId: null,
      toolCallId: '',
      serverName: wellFormed(record.serverName ?? ''),
      toolName: wellFormed(record.toolName ?? ''),
      definitionHash: record.definitionHash === undefined ? null : wellFormed(record.definitionHash),
      requestedBy: null,
      decision: null,
      actor: record.actor,
      decidedBy: storedText(record.summary),
      reason: null,
      args: before.stored,
      argsHash: before.hash,
      editedArgs: after.stored,
      editedArgsHash: after.hash,
      ...NO_RESULT,
    };
  };

  return {
    recordDecision: (record: DecisionRecord) => commit(decisionRow(record)),
    recordServerRequest: (record: ServerRequestRecord) => commit(serverRequestRow(record)),
    // Inside a claim of recordDecisionsWith (a policy change the answer makes: remember from the card), the row joins
    // that durable transaction; anywhere else it commits on its own.
    recordPolicyChange: (record: PolicyChangeRecord) =>
      claiming ? entryOf(append(policyRow(record))) : commit(policyRow(record)),
    recordDecisionsWith(records, claim, changes = []) {
      // Built (and checked) before the transaction: a bad record fails before anything is claimed.
      const rows = [
        ...records.map((record) =>
          'kind' in record ? serverRequestRow(record as ServerRequestRecord) : decisionRow(record),
        ),
        ...changes.map(policyRow),
      ];
      return durably(() =>
        db
          .transaction(() => {
            claiming = true;
            try {
              const claimed = claim();
              for (const row of rows) append(row);
              return claimed;
            } finally {
              claiming = false;
            }
          })
          .immediate(),
      );
    },
    recordTask(record: TaskRecord) {
      checkTaskRecord(record);
      const { taskId, status, statusMessage } = record;
      const args = argumentColumns({ taskId, status, ...(statusMessage === undefined ? {} : { statusMessage }) });
      return commit({
        ...callFields(record),
        kind: 'task',
        decision: null,
        actor: record.actor,
        decidedBy: TASK_EVENT_WORDS[record.event],
        reason: null,
        args: args.stored,
        argsHash: args.hash,
        editedArgs: null,
        editedArgsHash: null,
        ...NO_RESULT,
      });
    },
    recordToolResult(record: ToolResultRecord) {
      checkToolResultRecord(record);
      return commit({
        ...callFields(record),
        kind: 'result',
        ...NO_DECISION,
        outcome: record.outcome,
        durationMs: record.durationMs,
        resultBytes: record.resultBytes,
        error: record.error === undefined ? null : storedText(record.error),
      });
    },
    query,
    export: ({ format, path, overwrite, onProgress }) =>
      exportAuditLog({ databaseFile: db.name, dataDir, format, path, overwrite: overwrite ?? false, onProgress }),
    recordCheckpoint(key) {
      return commit((tail) => {
        const args = checkpointArgs(signCheckpoint(key, tail));
        return {
          kind: 'checkpoint',
          chatId: '',
          exchangeId: null,
          toolCallId: '',
          serverName: '',
          toolName: '',
          definitionHash: null,
          requestedBy: null,
          decision: null,
          actor: null,
          decidedBy: 'signed checkpoint',
          reason: null,
          args,
          argsHash: sha256Hex(args),
          editedArgs: null,
          editedArgsHash: null,
          ...NO_RESULT,
        };
      });
    },
    async verify(request = {}) {
      const result = await verifyAuditDatabase(db.name, { ...request, workerFile });
      const publicKey = request.checkpointKey ?? checkpointPublicKey?.() ?? null;
      if (!result.ok || publicKey === null) return result;
      // The chain holds; each checkpoint in it must also verify against the key (the first bad one is named).
      for (const row of checkpointRows.iterate(result.head.sequence) as IterableIterator<{
        sequence: number;
        previousHash: string;
        args: string | null;
      }>) {
        const problem = checkCheckpoint(row, publicKey);
        if (problem)
          return {
            ok: false,
            rowCount: problem.sequence - 1,
            problem,
            ...('notices' in result && result.notices ? { notices: result.notices } : {}),
          };
      }
      return result;
    },
    head: readHead,
    checkProtections: () => {
      guardAuditLog(db, now);
    },
  };
}

function callFields(
  record: DecisionRecord | ToolResultRecord | TaskRecord,
): Pick<
  RowContent,
  'chatId' | 'exchangeId' | 'toolCallId' | 'serverName' | 'toolName' | 'definitionHash' | 'requestedBy'
> {
  return {
    requestedBy: record.requestedBy ?? derivedRequester('decision', record.toolCallId),
    chatId: wellFormed(record.chatId),
    exchangeId: record.exchangeId === undefined ? null : wellFormed(record.exchangeId),
    toolCallId: wellFormed(record.toolCallId),
    serverName: wellFormed(record.serverName),
    toolName: wellFormed(record.toolName),
    definitionHash: record.definitionHash === undefined ? null : wellFormed(record.definitionHash),
  };
}

/**
 * The hash is keyed (args-hash.ts) and taken over the canonical JSON of the arguments exactly as given; what is
 * stored is that same JSON value (dates as their JSON text, `undefined` members dropped) with secrets redacted.
 */
function argumentColumnsOf(args: Record<string, unknown>, key: Buffer): { stored: string; hash: string } {
  const canonical = canonicalJson(args);
  return { stored: canonicalJson(redactValue(JSON.parse(canonical))), hash: keyedArgsHash(key, canonical) };
}

/** Free text (a reason, an error message): secrets taken out and length capped like argument values. */
function storedText(text: string): string {
  return wellFormed(redactValue(text) as string);
}

/**
 * SQLite stores text as UTF-8, which cannot hold a lone UTF-16 surrogate: it would come back as U+FFFD
 * and no longer match the hash taken at commit time. Such text is stored as it will read back.
 */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
