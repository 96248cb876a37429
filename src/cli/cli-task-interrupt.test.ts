/**
 * Ctrl+C during a tool call that runs as an MCP task (docs/user/mcp-servers.md#tasks): the built `workbench run`, a
 * child process, gets SIGINT while server-everything's `simulate-research-query` (a 2025-11-25 task) runs; the task is
 * cancelled on the server (`tasks/cancel`), not left running, and the chat and the audit log say so before it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../shared/audit';
import { providerToolName } from '../main/llm/tool-names';
import { CLI_ENTRY, cliEnv, cliJson, HANG_LIMIT_MS, makeHome, ROOT, runCli } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';

const RESEARCH = 'simulate-research-query';

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

describe('Ctrl+C during a call that runs as a task', { timeout: 180_000 }, () => {
  it('cancels the task on its server, shows the call cancelled, audits the cancel, and exits 130', async () => {
    const added = await runCli(
      ['servers', 'add', 'everything', '--package', '@modelcontextprotocol/server-everything'],
      {
        home: test.home,
      },
    );
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
    const exited = new Promise<number | null>((resolve) => running.once('close', (exitCode) => resolve(exitCode)));
    // The task runs: its status line is printed under the call.
    await until(
      () => /task working/.test(output),
      'the task to run',
      () => output,
    );

    running.kill('SIGINT');
    expect(await exited, output).toBe(130);
    expect(output).toMatch(/cancelled/i);

    const [chat] = await cliJson<Array<{ id: string }>>(['chats', 'list'], { home: test.home });
    const shown = await cliJson<ChatShow>(['chats', 'show', chat?.id ?? ''], { home: test.home });
    const calls = shown.messages.flatMap(
      (message) => message.reply?.turns.flatMap((turn) => turn.toolCalls ?? []) ?? [],
    );
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
  });
});
