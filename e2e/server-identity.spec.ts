/**
 * A server added to settings.json by hand while browser mode runs is not started until the person accepts what it runs
 * (docs/user/approvals.md, "A server added outside the app"): the servers page says so, light and dark, checked by axe.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test } from './fixtures';
import { filesReady, openSettings, shoot } from './settings-helpers';

const MEMORY_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: a server added by hand waits for acceptance, then starts`, async ({ page, workbench }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await filesReady(workbench);
    // A fresh install writes settings.json at its first change.
    await workbench.call('mcp.edit', { name: 'Files', logLevel: 'debug' });
    const file = path.join(workbench.dataDir, 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> };
    settings.mcpServers['Memory'] = { command: process.execPath, args: [MEMORY_SERVER] };
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));

    const dialog = await openSettings(page, workbench, 'MCP servers');
    await dialog
      .getByRole('list', { name: 'Servers' })
      .getByRole('button', { name: /Memory/ })
      .click();
    const detail = dialog.getByRole('region', { name: 'Server Memory' });
    await expect(detail.getByTestId('server-status')).toHaveText('Waiting for you to accept', { timeout: 15_000 });
    await expect(detail).toContainText('It does not start until you accept what it runs');
    await expect(detail.getByRole('button', { name: 'Keep it off' })).toBeVisible();
    await shoot(page, `${scheme}-20-server-waits-for-acceptance`);

    await detail.getByRole('button', { name: 'Use my settings for what it runs now' }).click();
    await expect(detail.getByTestId('server-status')).toHaveText('Running', { timeout: 15_000 });
    await expect(detail.getByRole('button', { name: 'Keep it off' })).toBeHidden();
  });
}
