/** Opening the settings dialog and its sections, for the settings specs. */
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { ROOT, expect, type Workbench } from './fixtures';

export const SETTINGS_SCREENS = path.join(ROOT, 'test-results', 'screens', 'settings');

export type Section = 'Providers' | 'MCP servers' | 'Approvals' | 'Audit log';

/** Opens the app and the settings dialog on one section; answers the dialog. */
export async function openSettings(page: Page, workbench: Workbench, section: Section): Promise<Locator> {
  await page.goto(workbench.url);
  await page.getByTestId('open-settings').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('tab', { name: section }).click();
  await expect(dialog.getByRole('heading', { level: 2, name: section })).toBeVisible();
  return dialog;
}

/** Waits until the bundled Files server is ready (its tools are known). */
export async function filesReady(workbench: Workbench): Promise<void> {
  await expect
    .poll(async () => ((await workbench.call('mcp.list')) as { servers: { name: string; status: { state: string } }[] }).servers.find((server) => server.name === 'Files')?.status.state, {
      timeout: 15_000,
    })
    .toBe('ready');
}

export async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(SETTINGS_SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}
