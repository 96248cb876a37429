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
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { ToolCallRecord } from '../../shared/messages';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { createServices, type Services } from '../services';

const SERVER = 'Reports';
const TOOL = 'slow_report';

/** A task store shared by every session of the server (a new connection after the app's restart looks it up). */
class SharedTaskStore extends InMemoryTaskStore {
  override createTask(...args: Parameters<InMemoryTaskStore['createTask']>): Promise<Task> {
    return super.createTask(args[0], args[1], args[2]);
  }
  override getTask(taskId: string): Promise<Task | null> {
    return super.getTask(taskId);
  }
  override storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    return super.storeTaskResult(taskId, status, result);
  }
  override getTaskResult(taskId: string): Promise<Result> {
    return super.getTaskResult(taskId);
  }
  override updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    return super.updateTaskStatus(taskId, status, statusMessage);
  }
}

/** The task server: `slow_report` creates a task that works until the test finishes it. Restartable on its port. */
interface TaskServer {
  url: string;
  calls: number;
  tasks: string[];
  finish(taskId: string, text: string): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function startTaskServer(): Promise<TaskServer> {
  let store = new SharedTaskStore();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = { calls: 0, tasks: [] as string[] };
  const mcpServer = (): Server => {
    const server = new Server(
      { name: 'reports', version: '1.0.0' },
      {
        capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
        taskStore: store,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: TOOL,
          description: 'Writes a report, slowly',
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
          execution: { taskSupport: 'required' },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      state.calls += 1;
      const task = await (extra.taskStore as NonNullable<typeof extra.taskStore>).createTask({
        ttl: null,
        pollInterval: 100,
      });
      await store.updateTaskStatus(task.taskId, 'working', 'Writing…');
      state.tasks.push(task.taskId);
      return { task };
    });
    return server;
  };
  const handler = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body = text ? JSON.parse(text) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      transport = created;
      await mcpServer().connect(created);
    }
    await transport.handleRequest(request, response, body);
  };
  let server = http.createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async (): Promise<void> => {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    sessions.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get calls() {
      return state.calls;
    },
    get tasks() {
      return state.tasks;
    },
    finish: (taskId, text) => store.storeTaskResult(taskId, 'completed', { content: [{ type: 'text', text }] }),
    async restart() {
      // The server's process starts again: its tasks (kept in memory) are gone.
      await close();
      store = new SharedTaskStore();
      server = http.createServer((request, response) => void handler(request, response));
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close,
  };
}

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

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const callOf = (open: Services, chatId: string): ToolCallRecord | undefined =>
  open.conversations
    .messages(chatId)
    .messages.flatMap((message) =>
      message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
    )
    .at(0);

const taskRows = (open: Services, toolCallId: string): AuditEntry[] =>
  open.audit
    .query({ kind: 'task', limit: 100 })
    .entries.filter((row) => row.toolCallId === toolCallId)
    .sort((a, b) => a.sequence - b.sequence);

/** The model calls the task tool; the task is created on the server; the app quits while it runs. */
async function startTaskAndQuit(): Promise<{ chatId: string; toolCallId: string; taskId: string }> {
  const first = openServices();
  services = first;
  first.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  first.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  first.mcpServers.add(SERVER, { url: reports.url });
  first.approvals.policy.update({ servers: { [SERVER]: { autoApprove: true } } });
  await until(() => first.mcp.tools(SERVER).some((tool) => tool.name === TOOL), 'the server lists its tool');
  const providerName = first.mcp.tools(SERVER).find((tool) => tool.name === TOOL)?.providerName as string;
  chatTurns.push({
    kind: 'reply',
    toolCalls: [{ id: 'call_report', name: providerName, argumentChunks: [JSON.stringify({ topic: 'tides' })] }],
  });
  const chatId = first.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
  first.conversations.send(chatId, { role: 'user', text: 'write the report' });
  await until(() => callOf(first, chatId)?.task?.statusMessage === 'Writing…', 'the task runs with its status');
  const call = callOf(first, chatId) as ToolCallRecord;
  await closeServices(first);
  services = undefined;
  expect(reports.calls).toBe(1);
  return { chatId, toolCallId: call.toolCallId, taskId: reports.tasks[0] as string };
}

describe('a task running when the app quits', () => {
  it('is looked up again on the next start, and its result is written into its block when it completes', async () => {
    const { chatId, toolCallId, taskId } = await startTaskAndQuit();
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
});
