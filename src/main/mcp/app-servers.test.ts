/**
 * MCP Apps against a published example app server from npm (@modelcontextprotocol/server-basic-vanillajs), spawned
 * for real over stdio: its tool's view is noticed, read and checked (docs/user/mcp-apps.md).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_APP_MIME_TYPE } from '../../shared/mcp-apps';
import { offerTools } from '../chat/tool-offer';
import { createTestHost, disposeTestHosts } from './test-fixtures/harness';

afterEach(disposeTestHosts);

/** The example's own entry (its package.json `bin`), run on this Node with `--stdio`, as its README says. */
const BASIC = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js', import.meta.url),
);
const basicServer = { command: process.execPath, args: [BASIC, '--stdio'] };

describe('the basic example app server', () => {
  it('lists a tool with a view, whose view is read as an MCP App with nothing declared', async () => {
    const test = createTestHost({ clock: basicServer });
    await test.waitFor('clock', (server) => server.status.state === 'ready' && server.status.toolCount > 0);
    const tool = test.host.tools('clock').find((item) => item.ui?.resourceUri);
    if (!tool) throw new Error(`no tool with a view in ${JSON.stringify(test.host.tools('clock'))}`);
    expect(tool.ui?.resourceUri).toMatch(/^ui:\/\//);
    expect(tool.ui?.visibility).toContain('model');
    expect(tool.problem).toBeUndefined();
    expect(offerTools(test.host.tools()).find(tool.providerName)).toBeDefined();

    const view = await test.host.appView('clock', tool.name);
    expect(view).toMatchObject({ serverName: 'clock', uri: tool.ui?.resourceUri, notices: [] });
    expect(view.html).toMatch(/<html/i);
    expect(view.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(view.permissions).toEqual([]);
    // The same view read twice is the same view.
    expect((await test.host.appView('clock', tool.name)).hash).toBe(view.hash);
    expect(MCP_APP_MIME_TYPE).toBe('text/html;profile=mcp-app');
  });

  it('refuses the view of a tool that does not exist', async () => {
    const test = createTestHost({ clock: basicServer });
    await test.waitFor('clock', (server) => server.status.state === 'ready' && server.status.toolCount > 0);
    await expect(test.host.appView('clock', 'no-such-tool')).rejects.toMatchObject({ code: 'not_found' });
  });
});
