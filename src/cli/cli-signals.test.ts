// `workbench run` ended by SIGTERM or SIGHUP (kill, a closed terminal) in the middle of a reply: the CLI stops through
// the one lifecycle (src/main/lifecycle.ts) — the exchange is stopped and stored as such, the MCP servers are gone,
// the database is closed intact — and exits with 128 + the signal's number.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY, cliEnv, cliJson, HANG_LIMIT_MS, makeHome, ROOT } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';
import { titleUnless } from '../main/testing/skip-reason';

const notLinux = process.platform !== 'linux';

let test: FakeWorkbench;
let child: ChildProcess | undefined;
beforeEach(async () => {
  test = await withFakeProvider(makeHome());
}, 60_000);
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await test.fake.close();
  fs.rmSync(test.home, { recursive: true, force: true });
});

/** The direct children of a process, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((task) => {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      return text ? text.split(/\s+/).map(Number) : [];
    });
  } catch {
    return [];
  }
}
const commandLine = (pid: number): string => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};
/** Exists and is not a zombie. */
const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
};

async function until<T>(check: () => T | undefined, what: string, output: () => string): Promise<T> {
  const deadline = Date.now() + HANG_LIMIT_MS;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface ChatShow {
  messages: Array<{ role: string; end?: string }>;
}

describe.skipIf(notLinux)(
  titleUnless('workbench ended by a signal', notLinux, 'it reads the process tree from /proc, which only Linux has'),
  { timeout: 180_000 },
  () => {
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const) {
      it(`${signal} during a reply stops the exchange, the MCP servers and the database in order, and exits ${code}`, async () => {
        // The reply's stream stays open after its first words, so the signal arrives mid-reply.
        test.fake.script({ kind: 'reply', text: ['Thinking', ' hard'], holdOpenAfter: 2 });
        const running = spawn(process.execPath, [CLI_ENTRY, 'run', 'think', ...test.providerFlags], {
          cwd: ROOT,
          env: cliEnv(test.home),
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        child = running;
        let output = '';
        running.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        running.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        running.stdin?.end('');
        const exited = new Promise<number | null>((resolve) => running.once('close', (exitCode) => resolve(exitCode)));
        const pid = running.pid as number;
        const files = await until(
          () => childrenOf(pid).find((process) => commandLine(process).includes('server-filesystem')),
          'the Files server',
          () => output,
        );
        await until(
          () => (output.includes('Thinking') ? true : undefined),
          'the first words of the reply',
          () => output,
        );

        running.kill(signal);
        expect(await exited).toBe(code);
        expect(alive(files)).toBe(false);

        // The exchange was stopped and stored as stopped (an abrupt exit would leave it unfinished), and the log verifies.
        const [chat] = await cliJson<Array<{ id: string }>>(['chats', 'list'], { home: test.home });
        const shown = await cliJson<ChatShow>(['chats', 'show', chat?.id ?? ''], { home: test.home });
        expect(shown.messages.filter((message) => message.role === 'assistant').map((message) => message.end)).toEqual([
          'aborted',
        ]);
        expect(await cliJson(['audit', 'verify'], { home: test.home })).toMatchObject({ ok: true });
      });
    }
  },
);
