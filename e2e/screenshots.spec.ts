/**
 * Screenshots of the UI's states for human review, in test-results/screens/*.png. Each state is
 * asserted first, so a screenshot never shows a half-loaded page.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { checkAccessibility } from './axe';
import { ROOT, expect, test, type Workbench } from './fixtures';
import { chatUi } from './chat-ui';
import { createChat, ui } from './ui';

const SCREENS = path.join(ROOT, 'test-results', 'screens');

const LONG_TITLE =
  'A very long chat title that keeps going well past the width of the sidebar, to show how it is truncated everywhere it appears';

async function shoot(page: Page, name: string): Promise<void> {
  // Nothing hovered, no caret blinking in the picture unless the state is about an input.
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

async function seed(workbench: Workbench): Promise<void> {
  for (const title of ['Release notes for 0.2', 'Filesystem server setup', LONG_TITLE, 'Weekly planning']) {
    await workbench.call('chat.create', { title });
  }
}

async function restMouse(page: Page): Promise<void> {
  await page.mouse.move(900, 700);
}

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: welcome, chats, renaming, search, delete dialog`, async ({ page, workbench }) => {
    // Five screens shot and checked by axe: about 51 s on a loaded CI host, near the default 90 s.
    test.setTimeout(150_000);
    await page.emulateMedia({ colorScheme: scheme });
    const view = ui(page);
    await page.goto(workbench.url);
    await expect(view.welcome).toBeVisible();
    await expect(view.noChatsYet).toBeVisible();
    await restMouse(page);
    await shoot(page, `${scheme}-01-welcome`);

    await seed(workbench);
    await expect(view.items).toHaveCount(4);
    await view.itemButton('Filesystem server setup').click();
    await expect(view.chatTitle).toHaveText('Filesystem server setup');
    await expect(view.emptyChat).toBeVisible();
    await restMouse(page);
    await shoot(page, `${scheme}-02-chat-selected`);

    await view.item('Weekly planning').hover();
    await expect(view.renameButton('Weekly planning')).toBeVisible();
    await shoot(page, `${scheme}-03-hover-actions`);

    await view.itemButton(LONG_TITLE).click();
    await expect(view.chatTitle).toHaveText(LONG_TITLE);
    await restMouse(page);
    await shoot(page, `${scheme}-04-long-title`);

    await view.renameButton(LONG_TITLE).click();
    await expect(view.titleEditor).toBeFocused();
    await view.titleEditor.fill('Renamed in the sidebar');
    await shoot(page, `${scheme}-05-renaming-sidebar`);
    await view.titleEditor.press('Escape');

    await view.chatTitleButton.click();
    await view.titleEditor.fill('');
    await view.titleEditor.press('Enter');
    await expect(view.titleProblem).toBeVisible();
    await shoot(page, `${scheme}-06-renaming-header-empty`);
    await view.titleEditor.press('Escape');
    await expect(view.titleEditor).toBeHidden();

    await view.search.fill('planning');
    await expect(view.items).toHaveCount(1);
    await restMouse(page);
    await shoot(page, `${scheme}-07-search`);
    await view.search.fill('nothing like this');
    await expect(view.sidebar.getByText('No chat matches')).toBeVisible();
    await shoot(page, `${scheme}-08-search-no-match`);
    await view.search.fill('');

    await view.deleteButton(LONG_TITLE).click();
    await expect(view.deleteDialog).toBeVisible();
    await expect(view.deleteDialog.getByRole('button', { name: 'Delete' })).toBeVisible();
    await expect(view.deleteDialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await shoot(page, `${scheme}-09-delete-dialog`);
    await view.deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(view.deleteDialog).toBeHidden();
  });

  test(`${scheme}: the message box grows with its text, then scrolls`, async ({ page, workbench }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(workbench.url);
    await createChat(page);
    const input = chatUi(page).input;
    await expect(input).toBeFocused();
    const height = async (): Promise<number> => (await input.boundingBox())?.height ?? Number.NaN;
    const oneLine = await height();
    await input.fill('A plan in four lines:\n1. read the notes\n2. list the open questions\n3. draft the reply');
    await expect.poll(height).toBeGreaterThan(oneLine * 2.5);
    await restMouse(page);
    await shoot(page, `${scheme}-14-composer-lines`);
    // Past its maximum height (240 px, chat.css) it stops growing and scrolls instead.
    await input.fill(Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n'));
    await expect.poll(height).toBeLessThanOrEqual(240);
    expect(await input.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
  });

  test(`${scheme}: missing token`, async ({ page, workbench }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${workbench.origin}/`);
    await expect(ui(page).missingToken).toBeVisible();
    await shoot(page, `${scheme}-10-missing-token`);
  });

  test(`${scheme}: connection lost`, async ({ page, workbench }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const view = ui(page);
    await page.goto(workbench.url);
    await createChat(page);
    await workbench.stop();
    await expect(view.banner).toContainText('Lost the connection to AI Workbench');
    await restMouse(page);
    await shoot(page, `${scheme}-11-connection-lost`);

    // Nothing can be created while disconnected; an edit made anyway explains itself in a toast and is kept.
    await expect(view.newChat).toBeDisabled();
    await view.chatTitleButton.click();
    await view.titleEditor.fill('Renamed while offline');
    await view.titleEditor.press('Enter');
    const toast = page.getByRole('alert');
    await expect(toast).toContainText('Not connected to AI Workbench');
    await expect(toast.getByRole('button', { name: 'Dismiss' })).toBeVisible();
    await restMouse(page);
    await shoot(page, `${scheme}-12-error-toast`);
    await toast.getByRole('button', { name: 'Dismiss' }).click();
    await expect(toast).toBeHidden();
    await expect(view.titleEditor).toHaveValue('Renamed while offline');
  });
}

test('a narrow window keeps the layout usable', async ({ page, workbench }) => {
  await page.setViewportSize({ width: 760, height: 520 });
  await seed(workbench);
  const view = ui(page);
  await page.goto(workbench.url);
  await expect(view.items).toHaveCount(4);
  await view.itemButton(LONG_TITLE).click();
  await expect(view.emptyChat).toBeVisible();
  await restMouse(page);
  await shoot(page, 'light-13-narrow');
});
