// One process follows a task (docs/user/mcp-servers.md#tasks, src/main/chat/task-claims.ts): a host in a child
// process (`workbench chat`, testing/task-follower-host.ts) calls a tool that runs as a task on a real 2025-11-25 MCP
// server over HTTP, and a second host opens the same data folder (the app beside it, real SQLite). While the first
// lives, the second never asks the server about the task; once the first is killed (no goodbye, its claim left in the
// database), the second takes the task over, follows it to its end and writes its result — once, with no new
// `tools/call`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from '../llm/testing/fake-llm-server';
import { providerToolName } from '../llm/tool-names';
import { createServices, type Services } from '../services';
import { startTaskServer, TOOL, type TaskServer } from './testing/reports-task-server';
import { firstCallOf, until } from './testing/task-call-helpers';

const SERVER = 'Reports';
const HOST = path.join(import.meta.dirname, 'testing', 'task-follower-host.ts');

let dir: string;
let llm: FakeLlmServer;
let reports: TaskServer;
let child: ChildProcess | undefined;
let services: Services | undefined;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-task-follower-'));
  reports = await startTaskServer();
  let turns = 0;
  llm = await startFakeLlmServer({
    respond: () =>
      turns++ === 0
        ? {
            kind: 'reply',
            toolCalls: [
              { id: 'call_report', name: providerToolName(SERVER, TOOL), argumentChunks: ['{"topic":"tides"}'] },
            ],
          }
        : { kind: 'reply', text: ['Done.'] },
  });
});
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  if (services) {
    await services.conversations.dispose();
    await services.mcp.stop();
    services.close();
  }
  services = undefined;
  await reports.close();
  await llm.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const callOf = firstCallOf;

/** When the follower named in the task's row last said it still follows it (read as another process would). */
function followedAt(toolCallId: string): number | undefined {
  const db = new Database(path.join(dir, 'workbench.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT followed_at FROM followed_tasks WHERE tool_call_id = ?').get(toolCallId) as
      { followed_at: number | null } | undefined;
    return row?.followed_at ?? undefined;
  } finally {
    db.close();
  }
}

describe('a task two hosts on one database could follow', { timeout: 120_000 }, () => {
  it('is followed by one live process only, and taken over by the other once that one is gone', async () => {
    const running = spawn(process.execPath, ['--import', 'tsx', HOST, dir, reports.url, llm.baseURL('openai')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = running;
    let output = '';
    running.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    running.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    await until(
      () => output.includes('"toolCallId"'),
      'the first host runs the task',
      60_000,
      () => output,
    );
    const { chatId, toolCallId } = JSON.parse(output.slice(output.indexOf('{'))) as {
      chatId: string;
      toolCallId: string;
    };
    const taskId = reports.tasks[0] as string;

    // The second host opens the same database while the first follows the task.
    const second = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
    services = second;
    second.mcp.start();
    await until(() => second.mcp.server(SERVER).status.state === 'ready', 'the second host reaches the server');
    expect(callOf(second, chatId)?.status).toBe('running');
    // Two of the first host's "still following" marks later, the second has looked at the task more than once.
    const seen = followedAt(toolCallId) ?? 0;
    await until(() => (followedAt(toolCallId) ?? 0) > seen + 1_000, 'the first host says twice it still follows');
    expect([...reports.lookers]).toEqual([reports.caller]);

    // The first host dies without a word: its claim stays in the database, naming a process that is gone.
    running.kill('SIGKILL');
    await new Promise((resolve) => running.once('close', resolve));
    await until(() => reports.lookers.size === 2, 'the second host takes the task over');
    await reports.finish(taskId, 'The report on tides.');
    await until(() => callOf(second, chatId)?.status === 'success', 'the second host writes the result');
    expect(callOf(second, chatId)?.result?.forModel.text).toContain('The report on tides.');
    expect(reports.calls).toBe(1);
    const results = second.audit.query({ kind: 'result', limit: 100 }).entries;
    expect(results.map((row) => [row.toolCallId, row.outcome])).toEqual([[toolCallId, 'success']]);
    const ends = second.audit
      .query({ kind: 'task', limit: 100 })
      .entries.filter((row) => row.decidedBy === 'task ended')
      .map((row) => (row.args as { status: string }).status);
    expect(ends).toEqual(['completed']);
    expect((await second.audit.verify()).ok).toBe(true);
  });
});

describe('a follower that was only stalled while another took its task over', { timeout: 120_000 }, () => {
  it('sends nothing more about the task once it wakes: it no longer holds it', async () => {
    // A first host creates the task and quits; the process in the child follows it after it.
    const first = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
    first.mcp.start();
    first.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
    first.providers.update({ id: 'fake', defaultModel: 'fake-large' });
    first.mcpServers.add(SERVER, { url: reports.url });
    first.approvals.policy.update({ servers: { [SERVER]: { autoApprove: true } } });
    await until(() => first.mcp.tools(SERVER).some((tool) => tool.name === TOOL), 'the server lists its tool');
    const chatId = first.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
    first.conversations.send(chatId, { role: 'user', text: 'write the report' });
    await until(() => callOf(first, chatId)?.task?.statusMessage === 'Writing…', 'the task runs');
    const toolCallId = callOf(first, chatId)?.toolCallId as string;
    await first.conversations.dispose();
    await first.mcp.stop();
    first.close();
    const taskId = reports.tasks[0] as string;

    const follower = spawn(process.execPath, ['--import', 'tsx', HOST, dir, 'follow'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = follower;
    let output = '';
    follower.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    follower.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    await until(
      () => reports.lookers.size === 2,
      'the child follows the task',
      60_000,
      () => output,
    );
    const stalled = [...reports.lookers].find((session) => session !== reports.caller) as string;

    // The child stalls (stopped, not gone): quiet for longer than a follower may be, as the database says.
    follower.kill('SIGSTOP');
    const db = new Database(path.join(dir, 'workbench.db'));
    try {
      db.prepare('UPDATE followed_tasks SET followed_at = 0 WHERE tool_call_id = ?').run(toolCallId);
    } finally {
      db.close();
    }
    const second = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
    services = second;
    second.mcp.start();
    await until(() => reports.lookers.size === 3, 'the second host takes the task over');
    const taker = [...reports.lookers].at(-1) as string;

    // The child wakes up: its next leg finds the task taken, and goes no further.
    const woke = reports.gets.length;
    follower.kill('SIGCONT');
    await until(
      () => reports.gets.slice(woke).filter((session) => session === taker).length >= 20,
      'the second host goes on following',
    );
    expect(reports.gets.slice(woke).filter((session) => session === stalled)).toEqual([]);
    await reports.finish(taskId, 'The report on tides.');
    await until(() => callOf(second, chatId)?.status === 'success', 'the second host writes the result');
    expect(reports.calls).toBe(1);
    const results = second.audit.query({ kind: 'result', limit: 100 }).entries;
    expect(results.map((row) => [row.toolCallId, row.outcome])).toEqual([[toolCallId, 'success']]);
  });
});
