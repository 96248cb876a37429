/** HTTP MCP servers on 127.0.0.1 for the host's tests: the SDK's own server classes, plus one that only fails. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestHttpServer {
  url: string;
  /** The `authorization` header of every request, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

function newMcpServer(): McpServer {
  const server = new McpServer({ name: 'http-fixture', version: '1.0.0' });
  server.registerTool(
    'shout',
    {
      description: 'Answers with its text in capitals.',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  return server;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

/** Streamable HTTP at /mcp, one session per initialize; refuses requests without `Authorization: Bearer <token>` when a token is given. */
export async function startStreamableHttpServer(token?: string): Promise<TestHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const { server, origin } = await listen(async (request, response) => {
    authorizations.push(request.headers.authorization);
    if (token && request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end('unauthorized');
      return;
    }
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, transport as StreamableHTTPServerTransport),
      });
      await newMcpServer().connect(transport);
    }
    await transport.handleRequest(request, response, body);
  });
  return {
    url: `${origin}/mcp`,
    authorizations,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await closeServer(server);
    },
  };
}

/** The older HTTP+SSE transport only: GET /sse opens the stream, POST /messages carries requests; a POST to /sse is a 405. */
export async function startSseOnlyServer(): Promise<TestHttpServer> {
  const transports = new Map<string, SSEServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const { server, origin } = await listen(async (request, response) => {
    authorizations.push(request.headers.authorization);
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      transports.set(transport.sessionId, transport);
      await newMcpServer().connect(transport);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void response.writeHead(404).end('no session');
      await transport.handlePostMessage(request, response, await readBody(request));
      return;
    }
    response.writeHead(405).end('method not allowed');
  });
  return {
    url: `${origin}/sse`,
    authorizations,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      await closeServer(server);
    },
  };
}

/** Answers every request with HTTP 500. */
export async function startFailingServer(): Promise<TestHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const { server, origin } = await listen((request, response) => {
    authorizations.push(request.headers.authorization);
    response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error: the database is on fire');
  });
  return { url: `${origin}/mcp`, authorizations, close: () => closeServer(server) };
}

/** A loopback address where nothing listens (a port that was free a moment ago). */
export async function unusedUrl(): Promise<string> {
  const { server, origin } = await listen(() => {});
  await closeServer(server);
  return `${origin}/mcp`;
}
