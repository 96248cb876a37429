// kill -9 while the audit log commits: nothing a child was told is committed may be lost, and the file must stay sound.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database';
import { verifyAuditDatabase } from './audit-verify';

const KILLS = 200;
const WARM_CHILDREN = 3;
const ROOT = path.resolve(import.meta.dirname, '../../..');
/** Inside the repository, so the bundle finds better-sqlite3 in node_modules. */
const BUNDLE = path.join(ROOT, '.cache', 'audit-kill-child', 'child.mjs');

let dir: string;
let dataDir: string;
let databaseFile: string;

beforeAll(() => {
  // One bundle: a child then starts in ~0.1 s instead of the ~0.5 s a TypeScript loader needs.
  buildSync({
    entryPoints: [path.join(import.meta.dirname, 'audit-kill-child.ts')],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-audit-kill-'));
  dataDir = path.join(dir, 'data');
  databaseFile = path.join(dataDir, 'workbench.db');
  openDatabase(databaseFile).close();
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Child {
  process: ChildProcess;
  /** Complete lines printed so far. */
  lines: string[];
  ready: Promise<void>;
  exited: Promise<void>;
  /** Resolves once the child has printed `count` sequence numbers (or has exited). */
  printed(count: number): Promise<void>;
}

function startChild(label: string): Child {
  const child = spawn(process.execPath, [BUNDLE, databaseFile, dataDir, label], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let markReady: () => void = () => {};
  let failReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  const waiting: { count: number; resolve: () => void }[] = [];
  const wake = (all = false): void => {
    for (const waiter of [...waiting]) {
      if (all || lines.length >= waiter.count) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (line === 'ready') markReady();
      else lines.push(line);
    }
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => {}); // a killed child closes its stdin; that is the point of the test
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL')
        failReady(new Error(`child ${label} exited with ${code}/${signal} before it was killed: ${stderr}`));
      wake(true);
      resolve();
    });
  });
  const printed = (count: number): Promise<void> =>
    lines.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }));
  return { process: child, lines, ready, exited, printed };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('kill -9 during audit commits', () => {
  it(`${KILLS} kills at random moments: integrity ok, the chain verifies, every printed sequence is stored`, async () => {
    const started = performance.now();
    // Children load ahead of time (loading takes longer than a round): only the runs, kills and checks are on the clock.
    const warm = Array.from({ length: WARM_CHILDREN }, (_, index) => startChild(String(index)));
    let committedTotal = 0;
    let killsAfterSomeCommits = 0;
    for (let iteration = 0; iteration < KILLS; iteration++) {
      const child = warm.shift() as Child;
      warm.push(startChild(String(iteration + WARM_CHILDREN)));
      await child.ready;
      child.process.stdin?.write('go\n');
      // A random moment: most often after a random number of commits plus a few milliseconds, which
      // lands inside the next commit (each takes a few ms with its fsync); sometimes while the database opens.
      const commits = Math.floor(Math.random() * 9);
      if (commits === 0) await pause(Math.floor(Math.random() * 60));
      else await Promise.race([child.printed(commits), pause(5000)]);
      await pause(Math.floor(Math.random() * 5));
      child.process.kill('SIGKILL');
      await child.exited;

      const printed = child.lines.map((line) => {
        const [sequence, toolCallId, kind] = line.split(' ');
        return { sequence: Number(sequence), toolCallId, kind };
      });
      committedTotal += printed.length;
      if (printed.length > 0) killsAfterSomeCommits++;

      const db = openDatabase(databaseFile);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const verified = await verifyAuditDatabase(databaseFile);
        expect(verified).toMatchObject({ ok: true });
        const find = db.prepare('SELECT tool_call_id AS toolCallId, kind FROM audit_log WHERE sequence = ?');
        for (const { sequence, toolCallId, kind } of printed) expect(find.get(sequence)).toEqual({ toolCallId, kind });
      } finally {
        db.close();
      }
    }
    for (const child of warm) child.process.kill('SIGKILL');
    await Promise.all(warm.map((child) => child.exited));

    const db = openDatabase(databaseFile);
    const rows = db.prepare('SELECT count(*) FROM audit_log').pluck().get() as number;
    db.close();
    // Rows committed but not yet printed when the kill came are allowed: printing follows the commit.
    expect(rows).toBeGreaterThanOrEqual(committedTotal);
    expect(killsAfterSomeCommits).toBeGreaterThan(0);
    console.log(
      `kill -9 test: ${KILLS} kills in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `${committedTotal} commits printed, ${rows} rows stored; ${killsAfterSomeCommits} kills came after at least one commit`,
    );
  }, 180_000);
});
