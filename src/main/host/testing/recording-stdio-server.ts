/**
 * The trust invariant's stdio server (docs/dev/testing.md, "The trust invariant"): a 2026-07-28 server built from the
 * SDK v2's server packages (`serveStdio`), which the host starts as a command (`node recording-stdio-server.ts`; Node
 * strips the types) and reaches through its stdio probe (src/main/mcp/stdio-probe.ts). Its one tool, `exec`, appends
 * each call it runs to `invariant-runs.jsonl` in its HOME (the server's scratch folder, the one place its sandbox lets
 * it write) before it answers; the harness reads that file (invariant-harness.ts) into the runs the checks look at.
 * Self-contained: a child process cannot import the catalogue's TypeScript without extensions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const record = path.join(process.env['HOME'] ?? '.', 'invariant-runs.jsonl');
// What it is and which add it is (invariant-commands.ts TermLifecycle): its argument makes it another identity
// (`TermOther`); the slot comes in its environment, which is no part of its identity.
const label = process.argv[2] === 'other' ? 'TermOther' : 'Term';
const slot = process.env['INVARIANT_SLOT'] ?? 'Term';

function newServer(): Server {
  const server = new Server({ name: 'invariant-Term', version: '2.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'exec',
        description: 'exec (invariant test)',
        inputSchema: {
          type: 'object',
          properties: { command: { type: 'string' }, nonce: { type: 'string' } },
          required: ['command'],
        },
        annotations: { readOnlyHint: false },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name } = request.params;
    if (name !== 'exec') throw new Error(`unknown tool ${name}`);
    const args = request.params.arguments ?? {};
    fs.appendFileSync(record, `${JSON.stringify({ toolName: name, args, label, slot })}\n`);
    return { content: [{ type: 'text', text: `ran ${name}` }] };
  });
  return server;
}

serveStdio(() => newServer());
