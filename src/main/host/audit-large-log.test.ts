// `audit.verify` and the export on a log above every size threshold of src/main/audit (docs/dev/architecture.md, built
// assets), through the contract of the app's services and of BUILT browser mode over its WebSocket. The built CLI:
// src/cli/cli-audit-large.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { MethodName } from '../../shared/contract';
import {
  AUDIT_EXPORT_READ_CHUNK_BYTES,
  type AuditExportPrepareOutput,
  type AuditExportResult,
  type AuditExportReadOutput,
  type AuditProgress,
  type AuditVerifyResult,
} from '../../shared/audit';
import type { Envelope } from '../../shared/errors';
import { readServerFrame, WIRE_PROTOCOL, WIRE_TOKEN_PREFIX } from '../../shared/wire';
import { fillLogFast, LARGE_LOG_ROWS } from '../audit/audit-test-support';
import { EXPORT_CHUNK_BYTES } from '../audit/export-lines';
import { verifyExportFile } from '../audit/export-verify';
import { createServices } from '../services';
import { DATABASE_FILE_NAME, openDatabase } from '../storage/database';
import { WEBSOCKET_PATH } from './browser-server';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const BROWSER_ENTRY = path.join(ROOT, 'out', 'main', 'browser.js');

/** Calls a contract method and answers its envelope; `events` collects what is pushed meanwhile. */
type Call = (method: MethodName, input?: unknown) => Promise<Envelope>;

let dir: string;
/** A data folder holding the large log; each test works on a copy. */
let filled: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-large-log-'));
  filled = path.join(dir, 'filled');
  const db = openDatabase(path.join(filled, DATABASE_FILE_NAME));
  try {
    fillLogFast(db, LARGE_LOG_ROWS);
  } finally {
    db.close();
  }
}, 60_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function copyOfFilled(name: string): string {
  const dataDir = path.join(dir, name);
  fs.mkdirSync(dataDir);
  fs.copyFileSync(path.join(filled, DATABASE_FILE_NAME), path.join(dataDir, DATABASE_FILE_NAME));
  return dataDir;
}

function value<T>(envelope: Envelope): T {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}

/** What every host must answer on the large log: verify on threads, and a download read back in several chunks. */
async function checkLargeLog(call: Call, progress: AuditProgress[]): Promise<void> {
  const verified = value<AuditVerifyResult>(await call('audit.verify'));
  expect(verified).toMatchObject({ ok: true, rowCount: LARGE_LOG_ROWS, head: { sequence: LARGE_LOG_ROWS } });
  expect(progress.filter((event) => event.operation === 'verify').at(-1)).toEqual({
    operation: 'verify',
    done: LARGE_LOG_ROWS,
    total: LARGE_LOG_ROWS,
  });

  // audit.export: into the data folder's exports/ only, however large.
  const exported = value<AuditExportResult>(await call('audit.export', { format: 'jsonl', fileName: 'large.jsonl' }));
  expect(exported).toMatchObject({
    rowCount: LARGE_LOG_ROWS,
    path: expect.stringMatching(/[\\/]exports[\\/]large\.jsonl$/),
  });
  expect(exported.bytes).toBeGreaterThan(2 * EXPORT_CHUNK_BYTES);
  expect(await verifyExportFile(exported.path)).toMatchObject({ ok: true, rowCount: LARGE_LOG_ROWS });
  expect(progress.filter((event) => event.operation === 'export').at(-1)).toEqual({
    operation: 'export',
    done: LARGE_LOG_ROWS,
    total: LARGE_LOG_ROWS,
  });

  const prepared = value<AuditExportPrepareOutput>(await call('audit.exportPrepare', { format: 'jsonl' }));
  expect(prepared).toMatchObject({ rowCount: LARGE_LOG_ROWS, head: verified.ok ? verified.head : {} });
  expect(prepared.bytes).toBeGreaterThan(2 * AUDIT_EXPORT_READ_CHUNK_BYTES);
  const chunks: Buffer[] = [];
  let offset = 0;
  for (let reads = 0; ; reads++) {
    expect(reads).toBeLessThan(100);
    const chunk = value<AuditExportReadOutput>(await call('audit.exportRead', { exportId: prepared.exportId, offset }));
    chunks.push(Buffer.from(chunk.base64, 'base64'));
    offset = chunk.nextOffset;
    if (chunk.done) break;
  }
  expect(chunks.length).toBeGreaterThan(2);
  const file = path.join(dir, `download-${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, Buffer.concat(chunks));
  expect(fs.statSync(file).size).toBe(prepared.bytes);
  expect(await verifyExportFile(file)).toMatchObject({ ok: true, rowCount: LARGE_LOG_ROWS });
}

describe(`a log of ${LARGE_LOG_ROWS} rows`, { timeout: 120_000 }, () => {
  it("through the app's services and their contract (the worker run from source)", async () => {
    const services = createServices({
      dataDir: copyOfFilled('services'),
      host: 'electron',
      version: '0.0.0-test',
      managedPolicyFile: null,
    });
    try {
      const progress: AuditProgress[] = [];
      services.events.subscribe((event, payload) => {
        if (event === 'audit.onDidProgress') progress.push(payload as AuditProgress);
      });
      const dispatch = createDispatcher(createHandlers(services), (error) => {
        throw error;
      });
      await checkLargeLog((method, input) => dispatch(method, input), progress);
    } finally {
      await services.auditDownloads.dispose();
      services.close();
    }
  });

  it('through built browser mode, over its WebSocket', async () => {
    if (!fs.existsSync(BROWSER_ENTRY))
      throw new Error(`${path.relative(ROOT, BROWSER_ENTRY)} is missing: run \`npm run build\` before this test.`);
    const home = copyOfFilled('browser');
    const child = spawn(process.execPath, [BROWSER_ENTRY, '--port', '0', '--no-open'], {
      cwd: ROOT,
      env: { ...process.env, WORKBENCH_HOME: home, WORKBENCH_MANAGED_POLICY: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let socket: WebSocket | null = null;
    try {
      const url = await readyUrl(child);
      const token = new URL(url).hash.replace(/^#token=/, '');
      socket = await open(`ws://${new URL(url).host}${WEBSOCKET_PATH}`, new URL(url).origin, token);
      const progress: AuditProgress[] = [];
      const pending = new Map<number, (envelope: Envelope) => void>();
      socket.on('message', (data: Buffer) => {
        const frame = readServerFrame(JSON.parse(data.toString()));
        if (!frame) throw new Error(`not a server frame: ${data.toString()}`);
        if (frame.type === 'event' && frame.event === 'audit.onDidProgress')
          progress.push(frame.payload as AuditProgress);
        if (frame.type === 'result' && frame.id !== null) pending.get(frame.id)?.(frame.result);
      });
      let id = 0;
      const ws = socket;
      await checkLargeLog(
        (method, input) =>
          new Promise((resolve) => {
            pending.set(++id, resolve);
            ws.send(JSON.stringify({ type: 'call', id, method, ...(input === undefined ? {} : { input }) }));
          }),
        progress,
      );
    } finally {
      socket?.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /ready at (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`browser mode ended (${code}) before it was ready: ${stderr}`)));
  });
}

function open(url: string, origin: string, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, [WIRE_PROTOCOL, `${WIRE_TOKEN_PREFIX}${token}`], { origin });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}
