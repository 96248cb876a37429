/**
 * What waits, everywhere (docs/user/approvals.md "What waits"): a call waiting in one chat shows as a
 * count on its tab and in the chat list — also once its tab is closed —, the window title counts every waiting call,
 * and Ctrl+Shift+A opens the inbox from anywhere, the oldest call focused; "Open in chat" brings its card.
 */
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot } from './chat-ui';

test('a waiting call is counted on its tab, in the chat list and in the title; Ctrl+Shift+A brings it back', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await say(page, 'write waiting.txt: hello');
  const card = view.card('write_file');
  await expect(card).toBeVisible();
  await expect(page).toHaveTitle('(1) AI Workbench');

  // Another chat: the first one's tab and list entry say a call waits there.
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(view.cards).toHaveCount(0);
  const firstTab = page
    .getByRole('tablist', { name: 'Open chats' })
    .locator('.tab')
    .filter({ hasText: 'write waiting.txt' });
  await expect(firstTab.getByTestId('waiting-badge')).toHaveText('11 call waits for your decision');
  await expect(firstTab.getByTestId('waiting-badge')).toHaveAttribute('title', '1 call waits for your decision');
  const firstItem = page
    .getByRole('list', { name: 'Chat list' })
    .getByRole('listitem')
    .filter({ hasText: 'write waiting.txt' });
  await expect(firstItem.getByTestId('waiting-badge')).toHaveAttribute('title', '1 call waits for your decision');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-31-waiting-badges`);
  }

  // Its tab closed, the chat list still shows it, and the shortcut opens the inbox on it; from there, its card.
  await firstTab.locator('.tab-close').click();
  await expect(firstTab).toHaveCount(0);
  await expect(firstItem.getByTestId('waiting-badge')).toBeVisible();
  await view.input.focus();
  await page.keyboard.press('Control+Shift+A');
  const item = page
    .getByRole('dialog', { name: 'Waiting for you' })
    .getByRole('listitem', { name: /^Files\.write_file in write waiting\.txt/ });
  await expect(item).toBeFocused();
  await item.getByRole('button', { name: 'Open in chat' }).click();
  await expect(card).toBeVisible();
  await expect(card).toBeFocused();

  // Answered: no badge, the title as it was.
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.cards).toHaveCount(0);
  await expect(page.getByTestId('waiting-badge')).toHaveCount(0);
  await expect(page).toHaveTitle('AI Workbench');
});
