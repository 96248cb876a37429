/**
 * A 2025-11-25 MCP server over Streamable HTTP whose one tool, `slow_report`, runs as a task (the SDK's server with a
 * task store) that works until the test finishes it: it outlives the hosts that call it, so a task can be followed
 * across a restart of the app (docs/user/mcp-servers.md#tasks). It records which sessions asked about a task.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

export const TOOL = 'slow_report';

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
export interface TaskServer {
  url: string;
  calls: number;
  tasks: string[];
  /** The session that sent the `tools/call`, and every session that sent `tasks/get`. */
  caller: string | undefined;
  lookers: ReadonlySet<string>;
  /** The method of every request, in the order they came. */
  methods: readonly string[];
  /** The session of every `tasks/get`, in the order they came. */
  gets: readonly string[];
  finish(taskId: string, text: string): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startTaskServer(): Promise<TaskServer> {
  let store = new SharedTaskStore();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = {
    calls: 0,
    tasks: [] as string[],
    caller: undefined as string | undefined,
    lookers: new Set<string>(),
    methods: [] as string[],
    gets: [] as string[],
  };
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
    const method = (body as { method?: unknown } | undefined)?.method;
    if (typeof method === 'string') state.methods.push(method);
    if (typeof sessionId === 'string' && method === 'tools/call') state.caller = sessionId;
    if (typeof sessionId === 'string' && method === 'tasks/get') {
      state.lookers.add(sessionId);
      state.gets.push(sessionId);
    }
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
    get caller() {
      return state.caller;
    },
    get lookers() {
      return state.lookers;
    },
    get methods() {
      return state.methods;
    },
    get gets() {
      return state.gets;
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
