/**
 * Where no sandbox can run (docs/user/sandbox.md#platforms): browser mode started with a bubblewrap that cannot make
 * a sandbox (WORKBENCH_BWRAP=/bin/false). With the organisation's `sandbox.allowUnconfined`, the Files server starts
 * unconfined and is marked Not contained in the list, its header and its Sandbox page; an HTTP server's Sandbox page
 * says containment applies only to local servers. Screens in light and dark, checked with axe.
 */
import { shootBoth } from './chat-ui';
import { useManagedPolicy } from './managed-policy';
import { expect, test } from './fixtures';
import { filesReady, openSettings } from './settings-helpers';

useManagedPolicy({ sandbox: { allowUnconfined: true } }, { WORKBENCH_BWRAP: '/bin/false' });

test('an unconfined server is marked Not contained everywhere; an HTTP server is said to be out of reach', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const files = (
    (await workbench.call('mcp.list')) as { servers: { name: string; status: { containment?: string } }[] }
  ).servers.find((server) => server.name === 'Files');
  expect(files?.status.containment).toBe('not-contained');
  await workbench.call('mcp.add', {
    name: 'Remote',
    server: { url: 'http://127.0.0.1:9/mcp', type: 'http' },
  });

  const dialog = await openSettings(page, workbench, 'MCP servers');
  const list = dialog.getByRole('list', { name: 'Servers' });
  await expect(list.getByRole('button', { name: /Files/ })).toContainText('Not contained');
  await list.getByRole('button', { name: /Files/ }).click();
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  await expect(detail.getByTestId('server-containment')).toHaveText('Not contained');
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  const sandbox = detail.getByTestId('server-sandbox');
  await expect(sandbox.getByRole('alert')).toContainText('Not contained.');
  await expect(sandbox.getByRole('alert')).toContainText('bubblewrap cannot make a sandbox on this machine');
  await expect(sandbox.getByRole('alert')).toContainText('It runs with all of your rights');
  await detail.getByRole('tab', { name: 'Sandbox' }).evaluate((tab) => tab.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sandbox-30-not-contained');
  await expect(
    (await workbench.call('mcp.logs', { name: 'Files', limit: 100 })) as { lines: { text: string }[] },
  ).toMatchObject({
    lines: expect.arrayContaining([expect.objectContaining({ text: expect.stringMatching(/^Not contained: /) })]),
  });

  await list.getByRole('button', { name: /Remote/ }).click();
  const remote = dialog.getByRole('region', { name: 'Server Remote' });
  await expect(remote.getByTestId('server-containment')).toHaveCount(0);
  await remote.getByRole('tab', { name: 'Sandbox' }).click();
  await expect(remote.getByTestId('server-sandbox')).toContainText(
    'Containment applies only to local (stdio) servers, which run on this computer.',
  );
  await remote.getByRole('tab', { name: 'Sandbox' }).evaluate((tab) => tab.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sandbox-31-http-server');
});
