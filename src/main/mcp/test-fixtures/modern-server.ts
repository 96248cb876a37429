/**
 * A 2026-07-28 MCP server on 127.0.0.1 for tests and the benchmark, built from the SDK v2's server packages
 * (`@modelcontextprotocol/server`'s `createMcpHandler` behind `@modelcontextprotocol/node`'s `toNodeHandler`): it
 * answers `server/discover`, and by default also 2025-era traffic (the SDK's stateless legacy fallback). Its tools
 * ask the client for input the 2026-07-28 way, with an `input_required` result the client answers by retrying:
 * `confirm` (an elicitation), `summarise` (sampling) and `where` (roots). Resources `note://one` and `note://two`; `notify`
 * publishes a change to the open `subscriptions/listen` streams.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface ModernFixture {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The JSON-RPC methods of the requests that reached the server, in order. */
  readonly methods: string[];
  /** Publishes a change to the open `subscriptions/listen` streams (tool list, resource updates). */
  notify: ServerNotifier;
  close(): Promise<void>;
}

function newServer(): McpServer {
  const server = new McpServer(
    { name: 'modern-fixture', version: '2.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
  );
  for (const name of ['one', 'two'])
    server.registerResource(name, `note://${name}`, { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: `note ${name}` }],
    }));
  server.registerTool(
    'echo',
    { description: 'Says the text back.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  const confirmation = z.object({ confirm: z.boolean() });
  server.registerTool(
    'confirm',
    { description: 'Asks the person to confirm, then says what they said.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (answer.kind === 'elicit')
        return {
          content: [
            {
              type: 'text',
              text: `${answer.action}: ${JSON.stringify(acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation) ?? null)}`,
            },
          ],
        };
      return inputRequired({
        inputRequests: { confirm: inputRequired.elicit({ message: 'Go ahead?', requestedSchema: confirmation }) },
      });
    },
  );
  server.registerTool(
    'summarise',
    { description: 'Asks the client’s model for a summary.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'summary');
      if (answer.kind === 'sampling') {
        const content = answer.result.content;
        const text = !Array.isArray(content) && content.type === 'text' ? content.text : '(not text)';
        return { content: [{ type: 'text', text: `model said: ${text}` }] };
      }
      return inputRequired({
        inputRequests: {
          summary: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Summarise.' } }],
            maxTokens: 50,
          }),
        },
      });
    },
  );
  server.registerTool(
    'where',
    { description: 'Asks the client for its roots.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (answer.kind === 'roots')
        return { content: [{ type: 'text', text: answer.roots.map((root) => root.uri).join(' ') }] };
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    },
  );
  return server;
}

export async function startModernServer({ legacy = true }: { legacy?: boolean } = {}): Promise<ModernFixture> {
  const methods: string[] = [];
  const mcp = createMcpHandler(() => newServer(), legacy ? {} : { legacy: 'reject' });
  const handler = toNodeHandler(mcp);
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
        const method = (body as { method?: unknown } | undefined)?.method;
        if (typeof method === 'string') methods.push(method);
      } catch {
        body = undefined;
      }
      void handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    methods,
    notify: mcp.notify,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
