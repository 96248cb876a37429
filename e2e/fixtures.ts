/**
 * The `workbench` fixture: a real browser-mode server (out/main/browser.js) per test, with its own
 * temporary WORKBENCH_HOME, started with `--port 0 --no-open`. The tests drive the built renderer in
 * Chromium against it, so every layer (React, bridge, WebSocket, dispatcher, services, SQLite) is real.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import WebSocket from 'ws';

export { expect };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BROWSER_ENTRY = path.join(ROOT, 'out', 'main', 'browser.js');

const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const READY_LINE = /AI Workbench \(browser mode\) ready at (http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+))/;

export interface Workbench {
  /** The address to open, with the token in the fragment. Changes on restart (new port, new token). */
  readonly url: string;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly token: string;
  /** The temporary WORKBENCH_HOME; it survives restarts and is removed after the test. */
  readonly dataDir: string;
  /** Everything the server wrote to stderr so far (all launches). */
  readonly stderr: string;
  /** Stops the server: SIGTERM, then SIGKILL if it has not exited after a grace period. */
  stop(): Promise<void>;
  /** Stops the server if it runs, then starts it again on the same data directory. */
  restart(): Promise<void>;
  /** Calls a contract method over the WebSocket, as the renderer would; rejects with the error data. */
  call(method: string, input?: unknown): Promise<unknown>;
}

interface Launch {
  child: ChildProcess;
  url: string;
  origin: string;
  token: string;
  exited: Promise<void>;
}

/** Node that can load better-sqlite3: the runner's own when it is Node ≥ 22 (npx), else node_modules/.bin/node. */
function nodeBinary(): string {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return process.execPath;
  const local = path.join(ROOT, 'node_modules', '.bin', 'node');
  if (existsSync(local)) return local;
  throw new Error(
    `The e2e tests need Node ≥ 22 (this runner is ${process.version}). Run them with \`npx playwright test\`.`,
  );
}

function launch(dataDir: string, log: { stderr: string }): Promise<Launch> {
  if (!existsSync(BROWSER_ENTRY)) {
    throw new Error(`${path.relative(ROOT, BROWSER_ENTRY)} is missing: run \`npm run build\` before the e2e tests.`);
  }
  const child = spawn(nodeBinary(), [BROWSER_ENTRY, '--port', '0', '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, WORKBENCH_HOME: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // An exit shows in the log, so a failed test that lost its server says how it went (code or signal).
  child.once('exit', (code, signal) => {
    log.stderr += `\n[fixture] browser mode (pid ${child.pid}) exited: code ${code}, signal ${signal}\n`;
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    log.stderr += chunk;
  });

  return new Promise<Launch>((resolve, reject) => {
    let stdout = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`The browser-mode server ${why}.\n--- stdout ---\n${stdout}\n--- stderr ---\n${log.stderr}`));
    };
    let ready = false;
    const timer = setTimeout(() => fail(`printed no ready line within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const onError = (error: Error): void => fail(`could not be spawned (${error.message})`);
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      fail(`exited before it was ready (code ${code}, signal ${signal})`);
    child.once('error', onError);
    child.once('exit', onExit);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const match = ready ? null : READY_LINE.exec(stdout);
      if (!match?.[1] || !match[2] || !match[3]) return;
      ready = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      child.on('error', (error) => {
        log.stderr += `\n[fixture] ${error.message}\n`;
      });
      resolve({ child, url: match[1], origin: `http://127.0.0.1:${match[2]}`, token: match[3], exited });
    });
  });
}

async function terminate(current: Launch): Promise<void> {
  const { child, exited } = current;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), STOP_GRACE_MS);
  });
  const outcome = await Promise.race([exited.then(() => 'exited' as const), graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Opens an authenticated WebSocket to a running server, the way the renderer does. */
export function connect(workbench: Pick<Workbench, 'origin' | 'token'>): Promise<WebSocket> {
  const socket = new WebSocket(
    `${workbench.origin.replace(/^http/, 'ws')}/ws`,
    ['aiwb.v1', `aiwb.token.${workbench.token}`],
    {
      origin: workbench.origin,
    },
  );
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function callOnce(
  workbench: Pick<Workbench, 'origin' | 'token'>,
  method: string,
  input: unknown,
): Promise<unknown> {
  const socket = await connect(workbench);
  try {
    const id = 1;
    const reply = new Promise<unknown>((resolve, reject) => {
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as {
          type: string;
          id?: number;
          result?: { ok: boolean; value?: unknown; error?: unknown };
        };
        if (frame.type !== 'result' || !frame.result || (frame.id !== id && frame.id !== null)) return;
        if (frame.result.ok) resolve(frame.result.value);
        else reject(new Error(`${method} failed: ${JSON.stringify(frame.result.error)}`));
      });
      socket.once('close', () => reject(new Error(`The connection closed before ${method} answered.`)));
    });
    // Like the renderer's bridge: "no input" travels as {} (JSON has no undefined).
    socket.send(JSON.stringify({ type: 'call', id, method, input: input === undefined ? {} : input }));
    return await reply;
  } finally {
    socket.close();
  }
}

export const test = base.extend<{ workbench: Workbench }>({
  workbench: async ({ context }, use, testInfo) => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'aiwb-e2e-'));
    const log = { stderr: '' };
    let current: Launch | null = null;
    try {
      current = await launch(dataDir, log);
      const running = (): Launch => {
        if (!current) throw new Error('The browser-mode server is stopped; call restart() first.');
        return current;
      };
      const workbench: Workbench = {
        get url() {
          return running().url;
        },
        get origin() {
          return running().origin;
        },
        get token() {
          return running().token;
        },
        dataDir,
        get stderr() {
          return log.stderr;
        },
        async stop() {
          if (!current) return;
          const stopping = current;
          current = null;
          await terminate(stopping);
        },
        async restart() {
          await workbench.stop();
          current = await launch(dataDir, log);
        },
        call: (method, input) => callOnce(running(), method, input),
      };
      await use(workbench);
      if (testInfo.status !== testInfo.expectedStatus) await reportFailure(testInfo, log.stderr, context.pages());
    } finally {
      if (current) await terminate(current);
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  },
});

/**
 * A failed test keeps what browser mode wrote to stderr and how it exited (the list reporter prints it), and each
 * page as it was before the server stops: Playwright's own page snapshot is taken after this fixture's teardown, so
 * it shows the page's "Lost the connection" banner whatever the failure was.
 */
async function reportFailure(testInfo: TestInfo, stderr: string, pages: Page[]): Promise<void> {
  await testInfo.attach('browser-mode stderr', { body: stderr || '(nothing)', contentType: 'text/plain' });
  for (const [index, page] of pages.entries()) {
    const snapshot = await page
      .locator('body')
      .ariaSnapshot({ timeout: 2000 })
      .catch((error: unknown) => `(no snapshot: ${(error as Error).message})`);
    await testInfo.attach(`page ${index + 1} before the server stopped`, { body: snapshot, contentType: 'text/plain' });
  }
}

/** Console errors, uncaught page errors and CSP violations of a page, from now on. */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** Records `securitypolicyviolation` events in the page (read them with `cspViolations`). */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    interface Violation {
      violatedDirective: string;
      blockedURI: string;
    }
    const store = globalThis as unknown as {
      __cspViolations: string[];
      addEventListener(type: 'securitypolicyviolation', listener: (event: Violation) => void): void;
    };
    store.__cspViolations = [];
    store.addEventListener('securitypolicyviolation', (violation) => {
      store.__cspViolations.push(`${violation.violatedDirective} blocked ${violation.blockedURI}`);
    });
  });
}

export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
}
