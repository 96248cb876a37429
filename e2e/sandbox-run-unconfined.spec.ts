/**
 * Settings › MCP servers › a server › Sandbox, with the real bubblewrap (docs/user/sandbox.md#unconfined,
 * #widening): the person lets Files run unconfined after a dialog that says what it means; it restarts marked Not
 * contained in the list, its header and its page, the change is an audit row, and "Contain it again" puts it back in
 * its box. A widening asked on that page shows one card there, not a second in "Server requests" (which shows it once
 * the page is closed). Screens in light and dark, checked with axe.
 */
import { shootBoth } from './chat-ui';
import { expect, test, type Workbench } from './fixtures';
import { filesReady, openSettings } from './settings-helpers';

test.describe.configure({ timeout: 120_000 });

const containment = async (workbench: Workbench): Promise<string | undefined> =>
  (
    (await workbench.call('mcp.list')) as {
      servers: { name: string; status: { state: string; containment?: string } }[];
    }
  ).servers.find((server) => server.name === 'Files' && server.status.state === 'ready')?.status.containment;

test('a person lets one server run unconfined, after a warning, audited and marked Not contained; and contains it again', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  expect(await containment(workbench)).toBe('contained');
  const dialog = await openSettings(page, workbench, 'MCP servers');
  const list = dialog.getByRole('list', { name: 'Servers' });
  await list.getByRole('button', { name: /Files/ }).click();
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  await expect(detail.getByTestId('server-containment')).toHaveText('Contained');
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  const section = detail.getByRole('region', { name: 'Run unconfined' });
  await expect(section).toContainText('Only for a server you trust completely that cannot work in its sandbox.');
  await section.getByRole('button', { name: 'Run unconfined…' }).click();
  const confirm = page.getByRole('dialog', { name: 'Run Files unconfined?' });
  await expect(confirm).toContainText('it can read and change every file you can');
  await expect(confirm).toContainText('renamed or pointed at another command, it is contained again');
  await shootBoth(page, 'sandbox-50-run-unconfined-dialog');
  await confirm.getByRole('button', { name: 'Run unconfined' }).click();
  await expect(confirm).toHaveCount(0);

  await expect(section).toContainText('You allowed it to run outside the sandbox');
  await expect(detail.getByTestId('server-sandbox').getByRole('alert')).toContainText(
    'Not contained. You allowed it to run unconfined. It runs with all of your rights',
  );
  await expect.poll(() => containment(workbench), { timeout: 30_000 }).toBe('not-contained');
  await expect(detail.getByTestId('server-containment')).toHaveText('Not contained');
  await expect(list.getByRole('button', { name: /Files/ })).toContainText('Not contained');
  const audit = (await workbench.call('audit.query', { kind: 'policy' })) as {
    entries: { decidedBy: string | null }[];
  };
  expect(audit.entries.map((entry) => entry.decidedBy)).toContainEqual(
    expect.stringMatching(
      /^Sandbox: Files may run unconfined \(Not contained: with all of your rights\) while it runs /,
    ),
  );
  await detail.getByRole('tab', { name: 'Sandbox' }).evaluate((tab) => tab.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sandbox-51-running-unconfined');

  await section.getByRole('button', { name: 'Contain it again' }).click();
  await expect.poll(() => containment(workbench), { timeout: 30_000 }).toBe('contained');
  await expect(detail.getByTestId('server-containment')).toHaveText('Contained');
  await expect(section.getByRole('button', { name: 'Run unconfined…' })).toBeVisible();
});

test('a widening asked on the Sandbox page shows one card there; closed, it waits in Server requests', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /Files/ }).click();
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  const sandbox = detail.getByTestId('server-sandbox');
  await sandbox.getByLabel('Path, host:port or variable').fill('/opt/notes');
  await sandbox.getByRole('button', { name: 'Allow…' }).click();
  const cards = page.locator('[data-testid="sandbox-widening"], [data-testid="server-request-card"]');
  await expect(sandbox.getByTestId('sandbox-widening')).toContainText(
    'Files may read /opt/notes (and everything in it)',
  );
  await expect(page.getByTestId('server-requests-tray')).toHaveCount(0);
  await expect(cards).toHaveCount(1);
  // Another server's page and back: the request still waits, on one card.
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  const tray = page.getByTestId('server-requests-tray');
  await expect(tray.locator('[data-kind="sandbox-widening"]')).toContainText(
    'Files may read /opt/notes (and everything in it)',
  );
  await expect(cards).toHaveCount(1);
  const again = await openSettings(page, workbench, 'MCP servers');
  await again.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /Files/ }).click();
  await again.getByRole('region', { name: 'Server Files' }).getByRole('tab', { name: 'Sandbox' }).click();
  await expect(again.getByRole('region', { name: 'Widening requests waiting' })).toContainText('/opt/notes');
  await expect(cards).toHaveCount(1);
  await again.getByRole('region', { name: 'Widening requests waiting' }).scrollIntoViewIfNeeded();
  await shootBoth(page, 'sandbox-52-widening-one-card');
  await again.getByRole('region', { name: 'Widening requests waiting' }).getByRole('button', { name: 'Deny' }).click();
  await expect(cards).toHaveCount(0);
});
