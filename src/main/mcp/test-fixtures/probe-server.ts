/**
 * A server whose one tool, `probe`, tries to read each file its first argument names (a JSON list) and answers what
 * happened to each: `ok` or the error's code. The sandbox invariant (src/main/host/testing/invariant-sandbox.ts) asks
 * it what its profile lets through.
 */
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const files = JSON.parse(process.argv[2] ?? '[]') as string[];
const server = new McpServer({ name: 'probe', version: '1.0.0' });
server.registerTool('probe', { description: 'Reads each file it was started with.' }, () => {
  const outcome: Record<string, string> = {};
  for (const file of files) {
    try {
      fs.readFileSync(file);
      outcome[file] = 'ok';
    } catch (error) {
      outcome[file] = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    }
  }
  return { content: [{ type: 'text', text: JSON.stringify(outcome) }], structuredContent: outcome };
});
await server.connect(new StdioServerTransport());
