/**
 * The organisation's `sandbox.requireContainment` (docs/user/organisation-policy.md): where no sandbox can run
 * (WORKBENCH_BWRAP=/bin/false), no server starts — not even one the person allowed to run unconfined (its own
 * settings' `sandbox.unconfined`), nor with the organisation's own `allowUnconfined` — and Settings says why. Screens in light and dark.
 */
import fs from 'node:fs';
import path from 'node:path';
import { shootBoth } from './chat-ui';
import { useManagedPolicy } from './managed-policy';
import { expect, test, type Workbench } from './fixtures';
import { openSettings } from './settings-helpers';

useManagedPolicy({ sandbox: { requireContainment: true, allowUnconfined: true } }, { WORKBENCH_BWRAP: '/bin/false' });

const filesStatus = async (workbench: Workbench) =>
  (
    (await workbench.call('mcp.list')) as {
      servers: { name: string; status: { state: string; message?: string; pid?: number } }[];
    }
  ).servers.find((server) => server.name === 'Files')?.status;

test('no server starts unconfined where the organisation requires containment, whatever the person allows', async ({
  page,
  workbench,
}) => {
  await expect.poll(async () => (await filesStatus(workbench))?.state, { timeout: 15_000 }).toBe('error');
  expect((await filesStatus(workbench))?.message).toContain(
    'Your organisation requires every server to be contained, so it cannot start.',
  );
  expect((await filesStatus(workbench))?.pid).toBeUndefined();

  // The person allows it to run unconfined in its own settings (settings.json by hand): still refused.
  await workbench.call('mcp.edit', { name: 'Files', logLevel: 'debug' });
  await workbench.stop();
  const file = path.join(workbench.dataDir, 'settings.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    mcpServers: Record<string, { sandbox?: Record<string, unknown>; identity?: { key: string; description: string } }>;
  };
  const files = settings.mcpServers['Files'];
  if (!files?.identity) throw new Error(`no Files server with its identity in ${JSON.stringify(settings)}`);
  // As Settings › Sandbox › Run unconfined writes it: for this name and what it runs (docs/user/sandbox.md#unconfined).
  files.sandbox = {
    ...files.sandbox,
    unconfined: {
      name: 'Files',
      identity: files.identity.key,
      description: files.identity.description,
      since: new Date().toISOString(),
    },
  };
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  await workbench.restart();
  await expect.poll(async () => (await filesStatus(workbench))?.state, { timeout: 15_000 }).toBe('error');
  expect((await filesStatus(workbench))?.message).toContain('Your organisation requires every server to be contained');

  const dialog = await openSettings(page, workbench, 'MCP servers');
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  await expect(detail.getByTestId('server-status')).toHaveText('Error');
  await expect(detail).toContainText('Your organisation requires every server to be contained, so it cannot start.');
  // Its Enabled switch says what the organisation does to it, here and in its form.
  const containmentWords =
    'Set by your organisation: it requires every server to be contained, so this one starts only in its sandbox, and not at all where no sandbox can run.';
  await expect(detail.getByRole('switch', { name: 'Enabled' })).toHaveAccessibleDescription(
    `A disabled server is stopped and offers no tools. ${containmentWords}`,
  );
  await expect(detail.getByRole('switch', { name: 'Enabled' })).toBeEnabled();
  await detail.getByRole('switch', { name: 'Enabled' }).evaluate((item) => item.scrollIntoView({ block: 'center' }));
  await shootBoth(page, 'sandbox-41-containment-enabled-switch');
  await detail.getByRole('button', { name: 'Edit' }).click();
  const form = page.getByTestId('server-form');
  await expect(form.getByRole('switch', { name: 'Enabled' })).toHaveAccessibleDescription(containmentWords);
  await form.getByRole('switch', { name: 'Enabled' }).evaluate((item) => item.scrollIntoView({ block: 'center' }));
  await shootBoth(page, 'sandbox-42-containment-server-form');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  await expect(detail.getByTestId('server-sandbox')).toContainText(
    'Your organisation requires every server to be contained, so it does not start.',
  );
  await expect(detail.getByTestId('server-sandbox')).not.toContainText('It runs with all of your rights');
  await expect(detail.getByRole('region', { name: 'Run unconfined' })).toContainText(
    'Your organisation requires every server to be contained: this allowance does not apply.',
  );
  await expect(detail.getByRole('region', { name: 'Widen the sandbox' })).toHaveCount(0);
  await detail.getByRole('tab', { name: 'Sandbox' }).evaluate((tab) => tab.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sandbox-40-containment-required');
});
