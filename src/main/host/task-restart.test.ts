// A tool call running as an MCP task, followed across a restart of the app (docs/user/mcp-servers.md#tasks): a real
// 2025-11-25 MCP server over Streamable HTTP (the SDK's server with a task store) outlives the services, which are
// closed while the task runs and opened again on the same data folder (real SQLite). On the next start the task is
// looked up again (`tasks/get`) and its result written into its block — or, when the server was restarted meanwhile
// and no longer knows the task, the call is shown as lost with the reason. No second `tools/call` reaches the server.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { ToolCallRecord } from '../../shared/messages';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { newTasksServer } from '../mcp/test-fixtures/modern-tasks-server';
import { createServices, type Services } from '../services';
import { startTaskServer, TOOL, type TaskServer } from './testing/reports-task-server';
import { firstCallOf, until } from './testing/task-call-helpers';

const SERVER = 'Reports';
const LOCAL = 'everything';
const RESEARCH = 'simulate-research-query';
const MODERN = 'Modern';

let llm: FakeLlmServer;
let chatTurns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({ respond: () => chatTurns.shift() ?? { kind: 'reply', text: ['Done.'] } });
});
afterAll(() => llm.close());

let dir: string;
let reports: TaskServer;
let services: Services | undefined;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-task-restart-'));
  reports = await startTaskServer();
  chatTurns = [];
});
afterEach(async () => {
  if (services) await closeServices(services);
  services = undefined;
  await reports.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function openServices(): Services {
  const opened = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  opened.mcp.start();
  return opened;
}

/** As a host quits: the exchanges stopped, the servers stopped, the database closed. */
async function closeServices(open: Services): Promise<void> {
  await open.conversations.dispose();
  await open.mcp.stop();
  open.close();
}

const callOf = firstCallOf;

const taskRows = (open: Services, toolCallId: string): AuditEntry[] =>
  open.audit
    .query({ kind: 'task', limit: 100 })
    .entries.filter((row) => row.toolCallId === toolCallId)
    .sort((a, b) => a.sequence - b.sequence);

/**
 * The model calls `tool` of the server added as `name`; the task is created on the server; the app quits once `runs`
 * holds for the call.
 */
async function startTaskAndQuit(
  name = SERVER,
  config: Parameters<Services['mcpServers']['add']>[1] = { url: reports.url },
  tool = TOOL,
  runs: (call: ToolCallRecord | undefined) => boolean = (call) => call?.task?.statusMessage === 'Writing…',
  args: Record<string, unknown> = { topic: 'tides' },
): Promise<{ chatId: string; toolCallId: string; taskId: string }> {
  const first = openServices();
  services = first;
  first.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  first.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  first.mcpServers.add(name, config);
  first.approvals.policy.update({ servers: { [name]: { autoApprove: true } } });
  await until(() => first.mcp.tools(name).some((listed) => listed.name === tool), 'the server lists its tool');
  const providerName = first.mcp.tools(name).find((listed) => listed.name === tool)?.providerName as string;
  chatTurns.push({
    kind: 'reply',
    toolCalls: [{ id: 'call_task', name: providerName, argumentChunks: [JSON.stringify(args)] }],
  });
  const chatId = first.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
  first.conversations.send(chatId, { role: 'user', text: 'do the work' });
  await until(() => runs(callOf(first, chatId)), 'the task runs');
  const call = callOf(first, chatId) as ToolCallRecord;
  await closeServices(first);
  services = undefined;
  return { chatId, toolCallId: call.toolCallId, taskId: call.task?.taskId ?? '' };
}

describe('a task running when the app quits', () => {
  it('is looked up again on the next start, and its result is written into its block when it completes', async () => {
    const { chatId, toolCallId, taskId } = await startTaskAndQuit();
    expect(reports.calls).toBe(1);
    // While the app was closed, the call is stored as running, with its task.
    const next = openServices();
    services = next;
    expect(callOf(next, chatId)?.status).toBe('running');
    await until(() => next.mcp.server(SERVER).status.state === 'ready', 'the server is ready again');
    await reports.finish(taskId, 'The report on tides.');
    await until(() => callOf(next, chatId)?.status === 'success', 'the followed task delivers its result');
    const call = callOf(next, chatId) as ToolCallRecord;
    expect(call.result?.forModel.text).toContain('The report on tides.');
    expect(call.task?.status).toBe('completed');
    // Followed, not run again: the server saw one tools/call.
    expect(reports.calls).toBe(1);
    expect(taskRows(next, toolCallId).map((row) => [row.decidedBy, (row.args as { status: string }).status])).toEqual([
      ['task started on the server', 'working'],
      ['task ended', 'completed'],
    ]);
    const results = next.audit.query({ kind: 'result', limit: 100 }).entries;
    expect(results.map((row) => [row.toolCallId, row.outcome])).toEqual([[toolCallId, 'success']]);
    expect((await next.audit.verify()).ok).toBe(true);
    // Nothing is left to follow: a third start does not look it up again.
    await closeServices(next);
    const third = openServices();
    services = third;
    expect(callOf(third, chatId)?.status).toBe('success');
  });

  it('is shown as lost, with the reason, when the server restarted meanwhile and no longer knows it', async () => {
    const { chatId, toolCallId } = await startTaskAndQuit();
    await reports.restart();
    const next = openServices();
    services = next;
    await until(() => callOf(next, chatId)?.status === 'error', 'the lost task is written as such');
    const call = callOf(next, chatId) as ToolCallRecord;
    expect(call.error).toMatch(
      /^The task of "slow_report" was lost: "Reports" no longer knows it \(.+\)\. It may have restarted/,
    );
    expect(call.task?.status).toBe('failed');
    // Not sent again to the restarted server: the one tools/call is the first start's.
    expect(reports.calls).toBe(1);
    expect(taskRows(next, toolCallId).map((row) => [row.decidedBy, (row.args as { status: string }).status])).toEqual([
      ['task started on the server', 'working'],
      ['task ended', 'failed'],
    ]);
    expect(next.audit.query({ kind: 'result', limit: 100 }).entries.map((row) => row.outcome)).toEqual(['error']);
  });

  it('is shown as ended with its server, with the reason, when that server is a local (command) server', async () => {
    // server-everything over stdio: its task lives in its process, which stops with the app.
    const { chatId, toolCallId } = await startTaskAndQuit(
      LOCAL,
      { package: '@modelcontextprotocol/server-everything' },
      RESEARCH,
      (call) => call?.task?.status === 'working',
    );

    const next = openServices();
    services = next;
    await until(() => callOf(next, chatId)?.status === 'error', 'the call is written as ended');
    const call = callOf(next, chatId) as ToolCallRecord;
    expect(call.error).toBe(
      `The task of "${RESEARCH}" ended with its server: "${LOCAL}" is a local (command) server, which stopped when the app quit or the server restarted, and its task stopped with it. Only a server that outlives the app (an HTTP server) can be followed after a restart.`,
    );
    expect(call.task?.status).toBe('failed');
    expect(taskRows(next, toolCallId).map((row) => [row.decidedBy, (row.args as { status: string }).status])).toEqual([
      ['task started on the server', 'working'],
      ['task ended', 'failed'],
    ]);
    const results = next.audit.query({ kind: 'result', limit: 100 }).entries;
    expect(results.map((row) => [row.toolCallId, row.outcome, row.error])).toEqual([[toolCallId, 'error', call.error]]);
    expect((await next.audit.verify()).ok).toBe(true);
  });
});

/** A deny rule that matches the call only by its arguments (docs/user/approvals.md). */
const noTides = (server: string, tool: string) => ({
  id: 'no-tides',
  effect: 'deny' as const,
  server,
  tool,
  args: [{ pointer: '/topic', match: 'equals' as const, value: 'tides' }],
});

/** The next start follows the task; once it has looked, a rule on its arguments comes into force. */
async function followThenDeny(
  name: string,
  tool: string,
  looks: () => number,
  chatId: string,
): Promise<{ next: Services; seen: number }> {
  const next = openServices();
  services = next;
  await until(() => looks() > 0, 'the next start follows the task');
  next.approvals.policy.update({ rules: { add: [noTides(name, tool)] } });
  await until(() => callOf(next, chatId)?.status === 'denied', 'the next leg is refused');
  return { next, seen: looks() };
}

/** What the refusal leaves: the call denied naming the rule, its task cancelled, the auto_deny row, no result row. */
function expectDenied(next: Services, chatId: string, toolCallId: string, what: string): void {
  const rule = `Denied by your rule #1: ${what} when /topic is "tides"`;
  const call = callOf(next, chatId) as ToolCallRecord;
  expect(call.decision).toEqual({ outcome: 'deny', actor: 'policy', reason: rule });
  expect(call.error).toBe(rule);
  expect(call.task?.status).toBe('cancelled');
  const denials = next.audit
    .query({ kind: 'decision', limit: 100 })
    .entries.filter((row) => row.toolCallId === toolCallId && row.decision === 'auto_deny');
  expect(denials.map((row) => [row.actor, row.decidedBy])).toEqual([
    ['policy', `${rule} (checked when the call was about to run)`],
  ]);
  expect(next.audit.query({ kind: 'result', limit: 100 }).entries.map((row) => row.toolCallId)).not.toContain(
    toolCallId,
  );
}

describe('a followed task and a rule on its arguments', () => {
  it('2025-11-25: the next tasks/get is not sent, tasks/cancel is, the audit names the rule', async () => {
    const { chatId, toolCallId } = await startTaskAndQuit();
    const before = reports.methods.length;
    const looks = (): number => reports.methods.slice(before).filter((method) => method === 'tasks/get').length;
    const { next, seen } = await followThenDeny(SERVER, TOOL, looks, chatId);
    await until(() => reports.methods.slice(before).includes('tasks/cancel'), 'the task is cancelled');
    const after = reports.methods.slice(before);
    // Nothing was asked of the task after the refusal: its cancel is the last word.
    expect(after.lastIndexOf('tasks/get')).toBeLessThan(after.indexOf('tasks/cancel'));
    expect(looks()).toBe(seen);
    expect(reports.calls).toBe(1);
    expectDenied(next, chatId, toolCallId, `${SERVER} ${TOOL}`);
  });

  it('2025-11-25, while the call that created it runs: the next tasks/get is not sent, tasks/cancel is, the audit names the rule', async () => {
    const open = openServices();
    services = open;
    open.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
    open.providers.update({ id: 'fake', defaultModel: 'fake-large' });
    open.mcpServers.add(SERVER, { url: reports.url });
    open.approvals.policy.update({ servers: { [SERVER]: { autoApprove: true } } });
    await until(() => open.mcp.tools(SERVER).some((listed) => listed.name === TOOL), 'the server lists its tool');
    const providerName = open.mcp.tools(SERVER).find((listed) => listed.name === TOOL)?.providerName as string;
    chatTurns.push({
      kind: 'reply',
      toolCalls: [{ id: 'call_task', name: providerName, argumentChunks: [JSON.stringify({ topic: 'tides' })] }],
    });
    const chatId = open.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
    open.conversations.send(chatId, { role: 'user', text: 'do the work' });
    const looks = (): number => reports.methods.filter((method) => method === 'tasks/get').length;
    await until(() => callOf(open, chatId)?.task?.statusMessage === 'Writing…' && looks() > 0, 'the task runs');
    open.approvals.policy.update({ rules: { add: [noTides(SERVER, TOOL)] } });
    await until(() => callOf(open, chatId)?.status === 'denied', 'the next leg is refused');
    const seen = looks();
    await until(() => reports.methods.includes('tasks/cancel'), 'the task is cancelled');
    const methods = reports.methods;
    expect(methods.lastIndexOf('tasks/get')).toBeLessThan(methods.indexOf('tasks/cancel'));
    expect(looks()).toBe(seen);
    expect(reports.calls).toBe(1);
    expectDenied(open, chatId, (callOf(open, chatId) as ToolCallRecord).toolCallId, `${SERVER} ${TOOL}`);
  });

  it('2026-07-28: the next tasks/get is not sent, tasks/cancel is, the audit names the rule', async () => {
    const received: string[] = [];
    const served = await serveModernTasks((method) => received.push(method));
    try {
      const { chatId, toolCallId } = await startTaskAndQuit(
        MODERN,
        { url: served.url, type: 'http' },
        'report',
        (call) => call?.task?.status === 'working',
        { steps: 100_000, stepMs: 50, topic: 'tides' },
      );
      const before = received.length;
      const looks = (): number => received.slice(before).filter((method) => method === 'tasks/get').length;
      const { next, seen } = await followThenDeny(MODERN, 'report', looks, chatId);
      await until(() => received.slice(before).includes('tasks/cancel'), 'the task is cancelled');
      const after = received.slice(before);
      expect(after.lastIndexOf('tasks/get')).toBeLessThan(after.indexOf('tasks/cancel'));
      expect(looks()).toBe(seen);
      expect(served.calls.filter((line) => line.includes('declared') && !line.includes('not declared'))).toHaveLength(
        1,
      );
      expectDenied(next, chatId, toolCallId, `${MODERN} report`);
    } finally {
      await served.close();
    }
  });
});

describe('a followed task whose call is gone from the chat', () => {
  it('is not followed without its arguments: tasks/cancel is sent, no tasks/get, and the server log says why', async () => {
    const { chatId } = await startTaskAndQuit();
    const before = reports.methods.length;
    // The next start, the chat deleted before its servers start: the call's record (its arguments) is gone.
    const next = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
    services = next;
    next.chats.delete(chatId);
    next.mcp.start();
    await until(() => reports.methods.slice(before).includes('tasks/cancel'), 'the task is cancelled');
    expect(reports.methods.slice(before)).not.toContain('tasks/get');
    await until(
      () => next.mcp.logs(SERVER).lines.some((line) => line.text.includes('was not followed')),
      'the server log says why',
    );
    expect(next.mcp.logs(SERVER).lines.map((line) => line.text)).toContain(
      `The task of "${TOOL}" was not followed: its call's arguments could not be read from the chat, so its next steps could not be checked against your rules. It was cancelled on "${SERVER}".`,
    );
    expect(reports.calls).toBe(1);
  });
});

/** The 2026-07-28 tasks fixture over HTTP in this process: it outlives the services (test-fixtures/modern-tasks-server.ts). */
async function serveModernTasks(
  received: (method: string) => void,
): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = [];
  const handler = toNodeHandler(createMcpHandler(() => newTasksServer((line) => calls.push(line), { received })));
  const server = http.createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
