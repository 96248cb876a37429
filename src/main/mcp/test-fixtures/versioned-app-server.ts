/**
 * An MCP Apps server whose view changes with its environment (VIEW_VERSION, and VIEW_CONNECT for a declared domain),
 * which is not part of what the server runs (its identity): the same server showing a changed view
 * (docs/user/mcp-apps.md#pinned-views).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const VIEW = 'ui://versioned/view';
const version = process.env['VIEW_VERSION'] ?? '1';
const connect = process.env['VIEW_CONNECT'];
const html = `<!doctype html><html><body><p id="version">version ${version}</p>${'<!-- padding -->'.repeat(Number(version))}</body></html>`;

const server = new McpServer({ name: 'versioned-app', version: '1.0.0' });
server.registerTool(
  'show',
  { description: 'Shows the versioned view.', _meta: { ui: { resourceUri: VIEW } } },
  async () => ({ content: [{ type: 'text', text: `version ${version}` }] }),
);
server.registerResource('view', VIEW, { mimeType: 'text/html;profile=mcp-app' }, async () => ({
  contents: [
    {
      uri: VIEW,
      mimeType: 'text/html;profile=mcp-app',
      text: html,
      ...(connect ? { _meta: { ui: { csp: { connectDomains: [connect] } } } } : {}),
    },
  ],
}));
await server.connect(new StdioServerTransport());
