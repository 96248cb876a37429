import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AUDIT_INSERT_SQL, NO_DECISION, NO_RESULT, sealedChain, sha256Hex } from '../../src/main/audit/audit-row';
import type { StoredAuditRow } from '../../src/main/audit/audit-row';
import type { DecisionRecord } from '../../src/main/audit/audit-log';
import { openDatabase } from '../../src/main/storage/database';
import { ROOT } from '../lib/project.ts';
import { measureProcess } from './process-measure.ts';

export const MILLION = 1_000_000;

/** One person's decision of a typical size, the row the commit benchmarks record (index makes its ids unique). */
export function benchDecision(index: number): DecisionRecord {
  return {
    chatId: '4b1f6c2e-0000-4000-8000-000000000001',
    exchangeId: `exchange-${index}`,
    toolCallId: `toolu_${index}`,
    serverName: 'filesystem',
    toolName: 'write_file',
    definitionHash: 'a'.repeat(64),
    decision: 'allow_once',
    actor: 'user',
    decidedBy: 'you allowed it once',
    args: { path: `/home/ada/project/notes-${index}.md`, content: 'lorem ipsum '.repeat(8) },
  };
}

/** A row like the tool loop writes: decisions and results in turn, a few chats, servers and tools. */
function fixtureRow(index: number): Omit<StoredAuditRow, 'previousHash' | 'hash'> {
  const call = {
    sequence: index + 1,
    time: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
    chatId: `4b1f6c2e-0000-4000-8000-${String(index % 50).padStart(12, '0')}`,
    exchangeId: `exchange-${Math.floor(index / 6)}`,
    toolCallId: `toolu_${String(Math.floor(index / 2)).padStart(12, '0')}`,
    serverName: index % 4 < 2 ? 'filesystem' : 'github',
    toolName: ['read_file', 'write_file', 'search_code', 'create_issue'][index % 4] as string,
    definitionHash: sha256Hex(`definition ${index % 4}`),
    requestedBy: 'model' as const,
  };
  if (index % 2 === 0) {
    const args = `{"content":"${'lorem ipsum '.repeat(index % 8)}","path":"/home/ada/project/src/module-${index % 997}.ts"}`;
    return {
      ...call,
      ...NO_RESULT,
      kind: 'decision',
      decision: index % 10 === 0 ? 'deny' : 'auto_allow',
      actor: index % 10 === 0 ? 'user' : 'policy',
      decidedBy: index % 10 === 0 ? 'you denied it' : "tool setting 'filesystem.read_file': auto-approve",
      reason: index % 10 === 0 ? 'not that file' : null,
      args,
      argsHash: sha256Hex(args),
      editedArgs: null,
      editedArgsHash: null,
    };
  }
  return {
    ...call,
    ...NO_DECISION,
    kind: 'result',
    outcome: index % 7 === 0 ? 'error' : 'success',
    durationMs: (index % 500) / 4,
    resultBytes: index % 65536,
    error: index % 7 === 0 ? 'ENOENT: no such file' : null,
  };
}

function* fixtureRows(rows: number): Generator<Omit<StoredAuditRow, 'previousHash' | 'hash'>> {
  for (let index = 0; index < rows; index++) yield fixtureRow(index);
}

/**
 * Fills a new database with `rows` chained audit rows in one transaction through one prepared
 * statement (a million separate FULL commits would take most of an hour), chained and hashed by the log's own `sealedChain`.
 */
export function buildAuditDatabase(file: string, rows: number): void {
  const db = openDatabase(file);
  try {
    const insert = db.prepare(AUDIT_INSERT_SQL);
    db.transaction(() => {
      for (const values of sealedChain(fixtureRows(rows))) insert.run(values);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Runs one operation of audit-bench-process.ts in a fresh Node process (clean memory to measure) and returns its JSON answer. */
export function runBenchProcess<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'scripts/bench/audit-bench-process.ts'), ...args],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`audit-bench-process ${args[0]} exited with code ${code}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as T);
    });
  });
}

let million: Promise<{ file: string; buildMs: number }> | null = null;

/** One 1,000,000-row database per benchmark run, shared by audit-export and audit-verify, removed at exit. */
export function millionRowDatabase(): Promise<{ file: string; buildMs: number }> {
  million ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-audit-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'data', 'workbench.db');
    const { ms } = await runBenchProcess<{ ms: number }>(['build', file, String(MILLION)]);
    return { file, buildMs: ms };
  })();
  return million;
}

/**
 * The floor of the audit benchmarks: Debian's `sqlite3` CLI dumping the whole audit table as JSON (`.mode json`),
 * into `out` (export), or through `sha256sum` (verify: read every row and hash the bytes). A whole process, timed
 * from its spawn. Throws when `sqlite3` is not installed (`apt-get install sqlite3`).
 */
export async function sqliteJsonDump(file: string, target: { out: string } | 'sha256sum'): Promise<number> {
  const query = `sqlite3 -readonly -json '${file}' 'SELECT * FROM audit_log ORDER BY sequence'`;
  const command = target === 'sha256sum' ? `${query} | sha256sum > /dev/null` : `${query} > '${target.out}'`;
  const result = await measureProcess({ argv: ['sh', '-c', `command -v sqlite3 > /dev/null || exit 127; ${command}`] });
  if (result.status === 127)
    throw new Error(
      'The audit benchmarks compare against the sqlite3 command-line tool: install it (apt-get install sqlite3).',
    );
  if (result.status !== 0) throw new Error(`sqlite3 failed (${result.status}): ${result.stderr}`);
  return result.wallMs;
}
