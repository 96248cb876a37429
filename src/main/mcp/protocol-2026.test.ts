/**
 * The 2026-07-28 revision beside 2025-11-25 (docs/dev/protocol-2026.md): measured facts about the SDK v2 client
 * (`@modelcontextprotocol/client`) in this code base, against a 2026-07-28 server built from the SDK v2's server
 * packages and a 2025-11-25 server built from the 1.x SDK.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport as ServerTransportV1 } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernServer, type ModernFixture } from './test-fixtures/modern-server';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

async function modern(options?: { legacy?: boolean }): Promise<ModernFixture> {
  const fixture = await startModernServer(options);
  closers.push(() => fixture.close());
  return fixture;
}

/** A 2025-11-25 server: the 1.x SDK's McpServer over its sessionful Streamable HTTP transport. */
async function legacyServer(): Promise<{ url: string; methods: string[] }> {
  const methods: string[] = [];
  const sessions = new Map<string, ServerTransportV1>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as { method?: string }) : undefined;
      if (body?.method) methods.push(body.method);
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      void (async () => {
        if (!transport) {
          const created = new ServerTransportV1({
            sessionIdGenerator: randomUUID,
            onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
          });
          const mcp = new McpServerV1({ name: 'legacy-fixture', version: '1.0.0' });
          mcp.registerTool('ping', { description: 'Answers pong.' }, async () => ({
            content: [{ type: 'text', text: 'pong' }],
          }));
          await mcp.connect(created);
          transport = created;
        }
        await transport.handleRequest(request, response, body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods };
}

function v2Client(): ClientV2 {
  const client = new ClientV2(
    { name: 'AI Workbench', version: '0.0.0-test' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
  );
  closers.push(() => client.close());
  return client;
}

describe('the SDK v2 client beside the 1.x SDK', () => {
  it('speaks 2026-07-28 to a 2026-07-28 server: server/discover, no initialize, tools listed and called', async () => {
    const fixture = await modern();
    const client = v2Client();
    await client.connect(new TransportV2(new URL(fixture.url)));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()).toMatchObject({ name: 'modern-fixture' });
    expect(fixture.methods[0]).toBe('server/discover');
    expect(fixture.methods).not.toContain('initialize');
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['confirm', 'echo', 'summarise', 'where']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('falls back by itself to the 2025-11-25 handshake for a 2025 server (v2 offers the fallback)', async () => {
    const server = await legacyServer();
    const client = v2Client();
    await client.connect(new TransportV2(new URL(server.url)));
    expect(client.getProtocolEra()).toBe('legacy');
    expect(server.methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(await client.callTool({ name: 'ping', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'pong' }],
    });
  });

  it('the 1.x client still reaches a 2026-07-28 server through its 2025 fallback (the stateless legacy path)', async () => {
    const fixture = await modern();
    const client = new ClientV1({ name: 'AI Workbench', version: '0.0.0-test' });
    closers.push(() => client.close());
    await client.connect(new TransportV1(new URL(fixture.url)));
    expect(fixture.methods[0]).toBe('initialize');
    expect(await client.callTool({ name: 'echo', arguments: { text: 'old' } })).toMatchObject({
      content: [{ type: 'text', text: 'old' }],
    });
  });

  it('a strict 2026-07-28 server refuses the 1.x client: only the v2 client reaches it', async () => {
    const fixture = await modern({ legacy: false });
    const old = new ClientV1({ name: 'AI Workbench', version: '0.0.0-test' });
    closers.push(() => old.close());
    await expect(old.connect(new TransportV1(new URL(fixture.url)))).rejects.toThrow();
    const client = v2Client();
    await client.connect(new TransportV2(new URL(fixture.url)));
    expect(client.getProtocolEra()).toBe('modern');
  });

  it('answers input_required (elicitation, sampling, roots) through the handlers set for server requests, and retries', async () => {
    const fixture = await modern();
    const client = v2Client();
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(`elicit ${request.params.message}`);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sample');
      return { role: 'assistant', model: 'fake', content: { type: 'text', text: 'short' } };
    });
    client.setRequestHandler('roots/list', async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work' }] };
    });
    await client.connect(new TransportV2(new URL(fixture.url)));
    expect(await client.callTool({ name: 'confirm', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'accept: {"confirm":true}' }],
    });
    expect(await client.callTool({ name: 'summarise', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'model said: short' }],
    });
    expect(await client.callTool({ name: 'where', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'file:///work' }],
    });
    expect(asked).toEqual(['elicit Go ahead?', 'sample', 'roots']);
    // Each tool call went out twice: once to learn what it needs, once with the answers.
    expect(fixture.methods.filter((method) => method === 'tools/call')).toHaveLength(6);
  });
});
