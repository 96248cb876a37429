/**
 * Ctrl+C during a tool call that runs as an MCP task (docs/user/mcp-servers.md#tasks): the built `workbench run`, a
 * child process, gets SIGINT while server-everything's `simulate-research-query` (a 2025-11-25 task) runs; the task is
 * cancelled on the server (`tasks/cancel`), not left running, and the chat and the audit log say so before it exits —
 * also when Ctrl+C comes while the `tools/call` that creates the task is still on its way (a relay holds the server's
 * answer until the CLI has taken the Ctrl+C: testing/held-task-relay.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../shared/audit';
import { providerToolName } from '../main/llm/tool-names';
import { CLI_ENTRY, cliEnv, cliJson, HANG_LIMIT_MS, makeHome, ROOT, runCli } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';

const RESEARCH = 'simulate-research-query';
/** server-everything behind a relay that holds the answer to the task's `tools/call` (testing/held-task-relay.ts). */
const RELAY = path.join(ROOT, 'src', 'cli', 'testing', 'held-task-relay.ts');

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

async function until(check: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + HANG_LIMIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface ChatShow {
  messages: Array<{
    role: string;
    reply?: { turns: Array<{ toolCalls?: Array<{ toolName: string; status: string; task?: { status: string } }> }> };
  }>;
}

/** The one call reads cancelled (its task too), and the audit log holds the person's cancel and the task's end. */
async function expectCancelledAndAudited(): Promise<void> {
  const [chat] = await cliJson<Array<{ id: string }>>(['chats', 'list'], { home: test.home });
  const shown = await cliJson<ChatShow>(['chats', 'show', chat?.id ?? ''], { home: test.home });
  const calls = shown.messages.flatMap((message) => message.reply?.turns.flatMap((turn) => turn.toolCalls ?? []) ?? []);
  expect(calls.map((call) => [call.toolName, call.status, call.task?.status])).toEqual([
    [RESEARCH, 'cancelled', 'cancelled'],
  ]);
  // The person's cancel (asked for before tasks/cancel was sent), and the task's end as the server reported it.
  const rows = (
    await cliJson<{ entries: AuditEntry[] }>(['audit', 'query', '--kind', 'task'], { home: test.home })
  ).entries.sort((a, b) => a.sequence - b.sequence);
  expect(rows.map((row) => [row.decidedBy, row.actor, (row.args as { status?: string }).status])).toEqual([
    ['task started on the server', 'system', 'working'],
    ['cancel of the task asked for', 'user', 'working'],
    ['task ended', 'system', 'cancelled'],
  ]);
  const results = (
    await cliJson<{ entries: AuditEntry[] }>(['audit', 'query', '--kind', 'result'], { home: test.home })
  ).entries;
  expect(results.map((row) => [row.toolName, row.outcome])).toEqual([[RESEARCH, 'error']]);
  expect(results[0]?.error).toMatch(/cancelled/);
  expect(await cliJson(['audit', 'verify'], { home: test.home })).toMatchObject({ ok: true });
}

/** Adds the server (`servers add everything …addArgs`), lets the research tool run, and starts `workbench run`. */
async function startResearch(
  addArgs: readonly string[],
): Promise<{ exited: Promise<number | null>; output(): string; interrupt(): void }> {
  const added = await runCli(['servers', 'add', 'everything', ...addArgs], { home: test.home });
  expect(added.code, added.stderr).toBe(0);
  await cliJson(['policy', 'set', 'tool', 'everything', RESEARCH, 'auto-approve'], { home: test.home });
  test.fake.script(
    {
      kind: 'reply',
      toolCalls: [
        {
          id: 'call_research',
          name: providerToolName('everything', RESEARCH),
          argumentChunks: [JSON.stringify({ topic: 'tides' })],
        },
      ],
    },
    { kind: 'reply', text: ['Stopped.'] },
  );
  const running = spawn(process.execPath, [CLI_ENTRY, 'run', 'research the tides', ...test.providerFlags], {
    cwd: ROOT,
    env: cliEnv(test.home),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child = running;
  let output = '';
  running.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  running.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  running.stdin?.end('');
  return {
    exited: new Promise<number | null>((resolve) => running.once('close', (exitCode) => resolve(exitCode))),
    output: () => output,
    interrupt: () => running.kill('SIGINT'),
  };
}

/** The file the relay wrote in its scratch folder, somewhere under the test's home (undefined while there is none). */
function relayFile(name: string): string | undefined {
  const found = (fs.readdirSync(test.home, { recursive: true }) as string[]).find(
    (entry) => path.basename(entry) === name && entry.includes('server-scratch'),
  );
  return found === undefined ? undefined : path.join(test.home, found);
}

describe('Ctrl+C during a call that runs as a task', { timeout: 180_000 }, () => {
  it('cancels the task on its server, shows the call cancelled, audits the cancel, and exits 130', async () => {
    const run = await startResearch(['--package', '@modelcontextprotocol/server-everything']);
    // The task runs: its status line is printed under the call.
    await until(() => /task working/.test(run.output()), 'the task to run', run.output);

    run.interrupt();
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toMatch(/cancelled/i);

    await expectCancelledAndAudited();
  });

  it('cancels a task whose tools/call was still on its way when Ctrl+C came, as soon as the task exists', async () => {
    const run = await startResearch(['--', process.execPath, RELAY]);
    // The server created the task; its answer (the task's handle) is held by the relay: the CLI does not know it yet.
    await until(() => relayFile('held') !== undefined, 'the task to be created', run.output);
    run.interrupt();
    // The CLI took the Ctrl+C (it says so as it stops the reply); only then does the handle reach it.
    await until(() => /Stopping…/.test(run.output()), 'the CLI to take the Ctrl+C', run.output);
    fs.writeFileSync(path.join(path.dirname(relayFile('held') as string), 'release'), '');

    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toMatch(/cancelled/i);
    await expectCancelledAndAudited();
  });
});
