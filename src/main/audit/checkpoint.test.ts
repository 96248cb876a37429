// Signed checkpoints (docs/user/audit-shipping.md#signed-checkpoints): a checkpoint row signs the chain head before it
// with Ed25519; verify checks each one against the public key and names a bad one. The attacker here owns the database
// file, drops the append-only triggers, rewrites rows, recomputes the whole chain and puts the triggers back.
import { generateKeyPairSync } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SecretStore } from '../settings/secret-store';
import {
  AUDIT_COLUMNS_SQL,
  GENESIS_HASH,
  HASH_INDEX,
  hashOfStoredRow,
  PREVIOUS_HASH_INDEX,
  SEQUENCE_INDEX,
} from './audit-row';
import { checkpointKey, CHECKPOINT_KEY_SECRET, publicKeyFrom, type CheckpointKey } from './checkpoint';
import { openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { createSqliteAuditLog, type SqliteAuditLog } from './sqlite-audit-log';

function memorySecrets(): SecretStore {
  const values = new Map<string, string>();
  return {
    protection: 'plain',
    get: (key) => values.get(key),
    has: (key) => values.has(key),
    set: (key, value) => void values.set(key, value),
    delete: (key) => void values.delete(key),
    keys: (prefix = '') => [...values.keys()].filter((key) => key.startsWith(prefix)),
  };
}

let target: TempAuditLog;
let log: SqliteAuditLog;
let key: CheckpointKey;

const decide = (index: number): void => {
  log.recordDecision({
    chatId: 'chat',
    toolCallId: `call-${index}`,
    serverName: 'Files',
    toolName: 'write_file',
    decision: 'allow_once',
    actor: 'user',
    decidedBy: 'you',
    args: { path: `/tmp/${index}` },
  });
};

beforeEach(() => {
  target = openTempAuditLog('aiwb-checkpoint-');
  const secrets = memorySecrets();
  key = checkpointKey(secrets, { create: true }) as CheckpointKey;
  expect(secrets.get(CHECKPOINT_KEY_SECRET)).toMatch(/BEGIN PRIVATE KEY/);
  log = createSqliteAuditLog({
    db: target.db,
    dataDir: target.dataDir,
    checkpointPublicKey: () => publicKeyFrom(key.publicKeyPem),
  });
  for (let index = 0; index < 5; index++) decide(index);
  log.recordCheckpoint(key); // row 6 signs row 5
  for (let index = 5; index < 10; index++) decide(index);
  log.recordCheckpoint(key); // row 12 signs row 11
  for (let index = 10; index < 13; index++) decide(index);
});

afterEach(() => target.close());

/** Opens the file raw, without the append-only triggers, runs `change`, and puts the triggers back as they were. */
function tamper(change: (db: BetterSqlite3.Database) => void): void {
  target.db.close();
  const db = new BetterSqlite3(target.file);
  const triggers = db
    .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name IN ('audit_log', 'audit_head')")
    .all() as { name: string; sql: string }[];
  for (const trigger of triggers) db.exec(`DROP TRIGGER ${trigger.name}`);
  change(db);
  for (const trigger of triggers) db.exec(trigger.sql);
  db.close();
}

/** Recomputes every row's hash and link from the genesis hash, and the head: the chain verifies again on its own. */
function recomputeChain(db: BetterSqlite3.Database): void {
  const rows = db.prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`).raw().all() as unknown[][];
  const update = db.prepare('UPDATE audit_log SET previous_hash = ?, hash = ? WHERE sequence = ?');
  let previous = GENESIS_HASH;
  for (const values of rows) {
    values[PREVIOUS_HASH_INDEX] = previous;
    previous = hashOfStoredRow(values);
    values[HASH_INDEX] = previous;
    update.run(values[PREVIOUS_HASH_INDEX], previous, values[SEQUENCE_INDEX]);
  }
  db.prepare('UPDATE audit_head SET sequence = ?, hash = ? WHERE id = 1').run(rows.length, previous);
}

const reopen = (options: { publicKeyPem?: string } = {}): SqliteAuditLog => {
  target.db = new BetterSqlite3(target.file) as TempAuditLog['db'];
  return createSqliteAuditLog({
    db: target.db,
    dataDir: target.dataDir,
    ...(options.publicKeyPem === undefined
      ? {}
      : { checkpointPublicKey: () => publicKeyFrom(options.publicKeyPem as string) }),
  });
};

describe('signed checkpoints', () => {
  it('a checkpoint row signs the head before it, and the log verifies with its key', async () => {
    const rows = target.db
      .prepare(
        "SELECT sequence, previous_hash AS previousHash, args FROM audit_log WHERE kind = 'checkpoint' ORDER BY sequence",
      )
      .all() as { sequence: number; previousHash: string; args: string }[];
    expect(rows.map((row) => row.sequence)).toEqual([6, 12]);
    expect(JSON.parse(rows[0]?.args ?? '{}')).toMatchObject({
      keyId: key.keyId,
      signed: { sequence: 5, hash: rows[0]?.previousHash },
    });
    expect(await log.verify()).toMatchObject({ ok: true, rowCount: 15 });
    expect(log.query({ kind: 'checkpoint' }).entries.map((entry) => entry.sequence)).toEqual([12, 6]);
  });

  it('a tampered checkpoint (its signed head changed, the chain recomputed) is named', async () => {
    tamper((db) => {
      const args = JSON.parse(db.prepare('SELECT args FROM audit_log WHERE sequence = 12').pluck().get() as string) as {
        signed: { hash: string };
      };
      args.signed.hash = 'f'.repeat(64);
      db.prepare('UPDATE audit_log SET args = ? WHERE sequence = 12').run(JSON.stringify(args));
      recomputeChain(db);
    });
    const result = await reopen({ publicKeyPem: key.publicKeyPem }).verify();
    expect(result).toMatchObject({ ok: false, rowCount: 11, problem: { sequence: 12, kind: 'checkpoint-invalid' } });
    expect(!result.ok && result.problem.message).toMatch(/checkpoint 12: its signature does not verify/);
  });

  it('a chain recomputed after a checkpoint (a row before it rewritten) is named at the first checkpoint after the change', async () => {
    tamper((db) => {
      db.prepare("UPDATE audit_log SET decision = 'deny' WHERE sequence = 8").run();
      recomputeChain(db);
    });
    // On its own, the chain holds again: only the signature binds the rows to what they were.
    expect(await reopen().verify()).toMatchObject({ ok: true });
    target.db.close();
    const result = await reopen({ publicKeyPem: key.publicKeyPem }).verify();
    expect(result).toMatchObject({ ok: false, problem: { sequence: 12, kind: 'checkpoint-invalid' } });
    expect(!result.ok && result.problem.message).toMatch(/the chain was recomputed after the checkpoint/);
  });

  it('a verifier needs only the public key: no secret store, the key given as PEM; another key is refused by name', async () => {
    target.db.close();
    const verifier = reopen();
    expect(await verifier.verify({ checkpointKey: publicKeyFrom(key.publicKeyPem) })).toMatchObject({
      ok: true,
      rowCount: 15,
    });
    const other = generateKeyPairSync('ed25519').publicKey;
    const result = await verifier.verify({ checkpointKey: other });
    expect(result).toMatchObject({ ok: false, problem: { sequence: 6, kind: 'checkpoint-invalid' } });
    expect(!result.ok && result.problem.message).toMatch(/signed by another key/);
  });
});
