/**
 * The MCP servers of the trust invariant test: real MCP over Streamable HTTP on 127.0.0.1 (the host has no way to
 * take an in-process transport), one URL per server of the catalogue; Shell speaks 2026-07-28 (recording-servers-2026.ts),
 * the others 2025-11-25, so every sequence runs with both revisions side by side. Every call a server actually runs is handed
 * to `onCall` at the moment it arrives, with its raw arguments, before the server answers; Shell's `run` of
 * SAMPLING_COMMANDS also asks the model (sampling) and hands the answer it got to `onSamplingAnswer`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { modernServerFor, MODERN_LABELS } from './recording-servers-2026';
import { RecordingTaskStore, TASK_TOOL, taskControl } from './recording-tasks';
import {
  ELICITATION_COMMANDS,
  ELICITATION_SCHEMA,
  inputSchemaOf,
  needsPageFirst,
  pageUrl,
  SAMPLING_COMMANDS,
  samplingPrompt,
  IDENTITY_LABELS,
  toolsOfLabel,
  VIEW_TOOL,
  VIEW_URI,
} from './invariant-catalogue';

export interface RecordingServers {
  /** The URL of each server, by its key in `mcpServers`. */
  readonly urls: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** `serverName` is what the server is (its URL path); `slot` is the query of the URL it was added at. */
export type CallListener = (serverName: string, slot: string, toolName: string, args: Record<string, unknown>) => void;

/** What the servers see happen: the calls they run, and the answers their sampling requests got back. */
export interface ServerListeners {
  onCall: CallListener;
  /** A sampling request was answered: `text` is what came back to the server (after the person saw it, maybe). */
  onSamplingAnswer(serverName: string, text: string): void;
  /** The server is about to ask the person (elicitation), and what came back: the action, and the content if any. */
  onElicitationRequest(serverName: string, nonce: string): void;
  onElicitationAnswer(
    serverName: string,
    nonce: string,
    action: string,
    content: Record<string, unknown> | undefined,
  ): void;
  /** A call was refused with -32042 (a page to open first) before it ran: it should come again once the page is accepted. */
  onPageRequired?(serverName: string, nonce: string): void;
  /**
   * A further leg of a call that already ran reached a 2026-07-28 server: the call sent again with the answers to its
   * `input_required` (recording-servers-2026.ts).
   */
  onLeg?: CallListener;
  /** The host opens a connection to the server (`initialize`, or 2026-07-28's `server/discover`): it starts it. */
  onConnect?(serverName: string, slot: string): void;
}

/** The nonces whose call was refused with -32042 once (nonces are unique across runs: see scripted-model.ts). */
export const pagesAsked = new Set<string>();

/** The tasks of every 2025-11-25 recording server (recording-tasks.ts): `write_report` runs as one. */
const taskStore = new RecordingTaskStore();

function mcpServerFor(serverName: string, slot: string, listeners: ServerListeners): Server {
  const server = new Server(
    { name: `invariant-${serverName}`, version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore,
    },
  );
  const tools = toolsOfLabel(serverName);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: `${tool.name} (invariant test)`,
      inputSchema: inputSchemaOf(tool) as { type: 'object' },
      annotations: { readOnlyHint: tool.readOnly },
      ...(tool.name === VIEW_TOOL ? { _meta: { ui: { resourceUri: VIEW_URI } } } : {}),
      ...(tool.name === TASK_TOOL ? { execution: { taskSupport: 'required' as const } } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!tools.some((tool) => tool.name === request.params.name))
      throw new Error(`unknown tool ${request.params.name}`);
    const nonce = String(args['nonce']);
    if (needsPageFirst(request.params.name, args) && !pagesAsked.has(nonce)) {
      // Refused before it runs, as the spec's error path: the client asks for the page and sends the call again.
      pagesAsked.add(nonce);
      listeners.onPageRequired?.(serverName, nonce);
      throw new McpError(ErrorCode.UrlElicitationRequired, 'Open the consent page first.', {
        elicitations: [
          { mode: 'url', url: pageUrl(nonce), message: `consent ${nonce}`, elicitationId: `page-${nonce}` },
        ],
      });
    }
    if (request.params.name === TASK_TOOL && !request.params.task)
      throw new McpError(
        ErrorCode.InvalidParams,
        `${TASK_TOOL} runs as a task only (execution.taskSupport: required).`,
      );
    listeners.onCall(serverName, slot, request.params.name, structuredClone(args));
    if (request.params.name === TASK_TOOL && extra.taskStore) {
      // The task is created here, once the call reached the server; its end comes from the store (recording-tasks.ts).
      const store = extra.taskStore;
      return { task: await taskStore.createFor((params) => store.createTask(params), serverName, slot, args) };
    }
    if (
      request.params.name === 'run' &&
      SAMPLING_COMMANDS.includes(String(args['command'])) &&
      typeof args['nonce'] === 'string'
    ) {
      // The server asks the model while its call runs, on that call's stream; a refusal is its answer too.
      try {
        const answer = await server.createMessage(
          {
            messages: [{ role: 'user', content: { type: 'text', text: samplingPrompt(args['nonce']) } }],
            maxTokens: 32,
          },
          { relatedRequestId: extra.requestId },
        );
        listeners.onSamplingAnswer(serverName, answer.content.type === 'text' ? answer.content.text : '');
      } catch {
        return { content: [{ type: 'text', text: `ran ${request.params.name}; sampling refused` }] };
      }
    }
    if (
      request.params.name === 'run' &&
      ELICITATION_COMMANDS.includes(String(args['command'])) &&
      typeof args['nonce'] === 'string'
    ) {
      const nonce = args['nonce'];
      listeners.onElicitationRequest(serverName, nonce);
      try {
        const answer = await server.elicitInput(
          { message: `confirm ${nonce}`, requestedSchema: ELICITATION_SCHEMA as never },
          { relatedRequestId: extra.requestId },
        );
        listeners.onElicitationAnswer(
          serverName,
          nonce,
          answer.action,
          answer.content as Record<string, unknown> | undefined,
        );
      } catch {
        return { content: [{ type: 'text', text: `ran ${request.params.name}; elicitation failed` }] };
      }
    }
    return { content: [{ type: 'text', text: `ran ${request.params.name}` }] };
  });
  return server;
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

export async function startRecordingServers(listeners: ServerListeners): Promise<RecordingServers> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const modern = new Map<string, ReturnType<typeof toNodeHandler>>();
  const server = http.createServer({ noDelay: true }, async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const serverName = decodeURIComponent(url.pathname.slice(1));
    const slot = url.searchParams.get('slot') ?? serverName;
    if (!(IDENTITY_LABELS as readonly string[]).includes(serverName)) return void response.writeHead(404).end();
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    const method = (body as { method?: unknown } | undefined)?.method;
    if (method === 'initialize' || method === 'server/discover') listeners.onConnect?.(serverName, slot);
    if (MODERN_LABELS.includes(serverName)) {
      // A 2026-07-28 server (the SDK v2's server packages), stateless: one handler per server and slot.
      const key = `${serverName}?${slot}`;
      let handler = modern.get(key);
      if (!handler) {
        handler = toNodeHandler(createMcpHandler(() => modernServerFor(serverName, slot, listeners)));
        modern.set(key, handler);
      }
      return void (await handler(request, response, body));
    }
    if (method === 'tasks/get' || method === 'tasks/result') {
      // A further leg of a task's call, checked against the deny rules in force as it arrives (recording-tasks.ts).
      const task = taskStore.legOf((body as { params?: { taskId?: unknown } }).params?.taskId);
      if (task) listeners.onLeg?.(serverName, task.slot, TASK_TOOL, structuredClone(task.args));
      if (task?.kept) await taskControl.holdLook(task);
    }
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      transport = created;
      await mcpServerFor(serverName, slot, listeners).connect(transport);
    }
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urls: Object.fromEntries(IDENTITY_LABELS.map((name) => [name, `${origin}/${name}`])),
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
