/**
 * settings.json edited by hand while the app runs (docs/user/data.md, "Editing settings.json"): a file that cannot be
 * used is named in a banner while the last good settings stay in force, a window opened meanwhile shows it too, and a
 * corrected save takes the banner away. Screens in light and dark, checked with axe.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { shootBoth } from './chat-ui';
import { expect, test } from './fixtures';

test('a settings.json that cannot be used is named in a banner, also in a window opened later, until it is corrected', async ({
  page,
  workbench,
}) => {
  const file = path.join(workbench.dataDir, 'settings.json');
  // A setting made in the app, which must stay in force while the file cannot be used.
  await workbench.call('policy.update', { timeoutSeconds: 240 });
  await page.goto(workbench.url);
  await expect(page.getByTestId('new-chat')).toBeEnabled();
  const good = await fs.readFile(file, 'utf8');
  const banner = page.getByRole('alert').filter({ hasText: 'settings.json' });
  await expect(banner).toHaveCount(0);

  // Half-written, as an editor that crashed mid-save would leave it.
  await fs.writeFile(file, good.slice(0, Math.floor(good.length / 2)));
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await shootBoth(page, 'settings-file-invalid');
  // The settings in force did not change.
  expect(await workbench.call('policy.get')).toMatchObject({ policy: { timeoutSeconds: 240 } });

  await page.reload();
  await expect(page.getByTestId('new-chat')).toBeEnabled();
  await expect(banner).toBeVisible();

  await fs.writeFile(file, good);
  await expect(banner).toHaveCount(0, { timeout: 15_000 });
  expect(await fs.readFile(file, 'utf8')).toBe(good);
});
