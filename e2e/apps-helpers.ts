/** MCP Apps in e2e specs (docs/user/mcp-apps.md): the published basic example app server, run for real over stdio. */
import path from 'node:path';
import { ROOT, expect, type Workbench } from './fixtures';

const BASIC = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');

/** The basic example added as "Clock", its get-time tool listed. */
export async function clockReady(workbench: Pick<Workbench, 'call'>): Promise<void> {
  await workbench.call('mcp.add', { name: 'Clock', server: { command: process.execPath, args: [BASIC, '--stdio'] } });
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.tools', { name: 'Clock' })) as { tools: { name: string }[] }).tools.some(
          (tool) => tool.name === 'get-time',
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
}
