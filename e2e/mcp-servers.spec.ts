/**
 * MCP servers in browser mode, through the contract as the renderer calls it: a new user's first
 * launch has the bundled "Files" server ready with its 14 tools, with no set-up.
 */
import { expect, test } from './fixtures';

interface ServerView {
  name: string;
  status: { state: string; toolCount: number };
}

test('a first launch shows the Files server ready with its 14 tools', async ({ workbench }) => {
  const files = async (): Promise<ServerView | undefined> =>
    ((await workbench.call('mcp.list')) as { servers: ServerView[] }).servers.find((server) => server.name === 'Files');
  await expect
    .poll(async () => (await files())?.status, { timeout: 15_000 })
    .toMatchObject({ state: 'ready', toolCount: 14 });
  const { tools } = (await workbench.call('mcp.tools', { name: 'Files' })) as {
    tools: { name: string; available: boolean }[];
  };
  expect(tools).toHaveLength(14);
  expect(tools.every((tool) => tool.available)).toBe(true);
});
