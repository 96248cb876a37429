// The floor of `cli-run-tool`: the least a program can do for one tool call of an MCP server — spawn it with the
// official SDK's stdio client, initialize, call `echo` once, print the result, exit. Plain JavaScript, so that nothing
// but Node and the SDK is loaded. Usage: node bare-mcp-client.mjs SERVER_ENTRY [ARGS…]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [entry, ...args] = process.argv.slice(2);
const client = new Client({ name: 'bare-floor', version: '0.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env: { ...process.env },
    stderr: 'ignore',
  }),
);
const result = await client.callTool({ name: 'echo', arguments: { message: 'hello from the floor' } });
process.stdout.write(`${JSON.stringify(result.content)}\n`);
await client.close();
