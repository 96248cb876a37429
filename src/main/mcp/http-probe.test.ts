/**
 * A first start over HTTP (docs/dev/protocol-2026.md): `server/discover` and the 1.x client's `initialize` go out
 * together. A 2026-07-28 server keeps the v2 client and the 1.x session opened beside it is ended (DELETE); a
 * 2025-11-25 server keeps the 1.x session, with one initialize; a server that fails one of the two is reached through
 * the other. Against one server that speaks both revisions (the SDK v2's `createMcpHandler` for 2026-07-28 requests,
 * the 1.x SDK's stateful Streamable HTTP transport for `initialize` and its session) and can refuse either.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer as LegacyServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer as ModernServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connect, ConnectError, type Connection, type ConnectOptions } from './connect';
import type { NodeRuntime } from './node-runtime';
import { createProbeVerdicts } from './probe-verdicts';

interface DualServer {
  url: string;
  /** The JSON-RPC method of every POST, in order. */
  methods: string[];
  /** The 1.x sessions opened (by initialize) and the ones ended by DELETE. */
  opened: string[];
  deleted: string[];
  close(): Promise<void>;
}

/**
 * `discover`: `modern` answers as 2026-07-28; `refuse` is a 2025-11-25 server (the 1.x transport refuses a request
 * without a session); `fail` answers HTTP 500. `initialize`: `ok`, or `fail` (HTTP 500).
 */
async function startDualServer({
  discover,
  initialize,
}: {
  discover: 'modern' | 'refuse' | 'fail';
  initialize: 'ok' | 'fail';
}): Promise<DualServer> {
  const methods: string[] = [];
  const opened: string[] = [];
  const deleted: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const modern = toNodeHandler(
    createMcpHandler(
      () => {
        const server = new ModernServer({ name: 'dual', version: '2.0.0' });
        server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
          content: [{ type: 'text', text }],
        }));
        return server;
      },
      { legacy: 'reject' },
    ),
  );
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as { method?: string }) : undefined;
    if (typeof body?.method === 'string') methods.push(body.method);
    const sessionId = request.headers['mcp-session-id'];
    if (request.method === 'DELETE' && typeof sessionId === 'string') deleted.push(sessionId);
    const legacy = body?.method === 'initialize' || typeof sessionId === 'string';
    if ((legacy && body?.method === 'initialize' && initialize === 'fail') || (!legacy && discover === 'fail')) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    if (!legacy && discover === 'modern') {
      await modern(request, response, body);
      return;
    }
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          opened.push(id);
          sessions.set(id, created);
        },
      });
      const legacyServer = new LegacyServer({ name: 'dual-legacy', version: '1.0.0' });
      legacyServer.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text }],
      }));
      await legacyServer.connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    methods,
    opened,
    deleted,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function reach(fixture: DualServer): Promise<{ connection: Connection; log: string[] }> {
  const log: string[] = [];
  const options: ConnectOptions = {
    runtime: {} as NodeRuntime,
    initializeTimeoutMs: 10_000,
    clientVersion: 'test',
    log: (_source, text) => void log.push(text),
    onUnexpectedClose: (reason) => void log.push(`UNEXPECTED: ${reason}`),
    onToolsChanged: () => undefined,
    verdicts: createProbeVerdicts(),
  };
  const connection = await connect(
    { kind: 'http', name: 'dual', url: fixture.url, headers: {}, type: 'http' },
    options,
  );
  closers.push(() => connection.close());
  return { connection, log };
}

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 5000) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const tools = async (connection: Connection): Promise<string[]> =>
  (await connection.client.request({ method: 'tools/list' }, ListToolsResultSchema)).tools.map((tool) => tool.name);

describe('a first start over HTTP: the probe beside initialize', () => {
  it('a 2026-07-28 server keeps the v2 client; the 1.x session opened beside the probe is ended (DELETE)', async () => {
    const fixture = await startDualServer({ discover: 'modern', initialize: 'ok' });
    closers.push(() => fixture.close());
    const { connection, log } = await reach(fixture);
    expect(connection.protocolVersion).toBe('2026-07-28');
    expect(await tools(connection)).toEqual(['echo']);
    // Both went out at once; the 1.x session that initialize opened is ended, nothing else was sent on it.
    expect(fixture.methods).toContain('server/discover');
    expect(fixture.methods).toContain('initialize');
    await until(() => fixture.opened.length === 1 && fixture.deleted.length === 1);
    expect(fixture.deleted).toEqual(fixture.opened);
    expect(log.filter((line) => line.startsWith('Connected'))).toEqual([
      expect.stringContaining('protocol 2026-07-28'),
    ]);
    expect(log.join('\n')).not.toContain('UNEXPECTED');
  });

  it('a 2025-11-25 server keeps the 1.x session: one initialize, nothing ended', async () => {
    const fixture = await startDualServer({ discover: 'refuse', initialize: 'ok' });
    closers.push(() => fixture.close());
    const { connection, log } = await reach(fixture);
    expect(connection.protocolVersion).toBe('2025-11-25');
    expect(await tools(connection)).toEqual(['echo']);
    expect(fixture.methods.filter((method) => method === 'initialize')).toHaveLength(1);
    expect(fixture.opened).toHaveLength(1);
    expect(fixture.deleted).toEqual([]);
    expect(log.filter((line) => line.startsWith('Connected'))).toEqual([
      expect.stringContaining('protocol 2025-11-25'),
    ]);
  });

  it('a server whose probe fails (HTTP 500) is reached through the 1.x session opened beside it', async () => {
    const fixture = await startDualServer({ discover: 'fail', initialize: 'ok' });
    closers.push(() => fixture.close());
    const { connection } = await reach(fixture);
    expect(connection.protocolVersion).toBe('2025-11-25');
    expect(await tools(connection)).toEqual(['echo']);
    expect(fixture.methods.filter((method) => method === 'initialize')).toHaveLength(1);
  });

  it('a 2026-07-28 server that fails the 1.x initialize is reached through the probe; the failure is not reported', async () => {
    const fixture = await startDualServer({ discover: 'modern', initialize: 'fail' });
    closers.push(() => fixture.close());
    const { connection, log } = await reach(fixture);
    expect(connection.protocolVersion).toBe('2026-07-28');
    expect(await tools(connection)).toEqual(['echo']);
    expect(fixture.opened).toEqual([]);
    expect(log.join('\n')).not.toMatch(/500|UNEXPECTED/);
  });

  it('a server that fails both says why the 1.x client could not connect', async () => {
    const fixture = await startDualServer({ discover: 'fail', initialize: 'fail' });
    closers.push(() => fixture.close());
    const failure = await reach(fixture).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).message).toMatch(/Cannot connect to .*: the server answered HTTP 500/);
  });
});
