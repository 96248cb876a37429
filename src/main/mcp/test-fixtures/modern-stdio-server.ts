/**
 * A 2026-07-28 MCP server over stdio for tests, built from the SDK v2's server packages (`@modelcontextprotocol/server`
 * 2.4's `serveStdio`): it answers `server/discover`, and `initialize` too (the SDK's 2025-era fallback). Run as a child
 * process (`node modern-stdio-server.ts`; Node strips the types). It writes `modern-stdio-fixture: serving (pid N)` to
 * stderr once per process, so a test counts the processes a connect started, and `received METHOD` for each request
 * (unless MODERN_STDIO_QUIET=1: the benchmark measures calls, not this log). Tools: `echo`, and `confirm`, which asks
 * the client to confirm with an `input_required` result (an elicitation).
 */
import { acceptedContent, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function newServer(): McpServer {
  const server = new McpServer({ name: 'modern-stdio-fixture', version: '2.0.0' });
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
  return server;
}

process.stderr.write(`modern-stdio-fixture: serving (pid ${process.pid})\n`);
// Each request's method to stderr, so a test sees what the client sent (the SDK's transport reads stdin too).
let unread = '';
if (process.env['MODERN_STDIO_QUIET'] !== '1')
  process.stdin.on('data', (chunk: Buffer) => {
    const lines = (unread + chunk.toString('utf8')).split('\n');
    unread = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const { method, id } = JSON.parse(line) as { method?: string; id?: unknown };
        if (method && id !== undefined) process.stderr.write(`modern-stdio-fixture: received ${method}\n`);
      } catch {
        // Not JSON: the SDK's transport reports it.
      }
    }
  });
serveStdio(() => newServer());
