/** Chat tabs: opened from the list, closed, reordered, and restored after a reload. */
import { expect, test } from './fixtures';
import { chatUi } from './chat-ui';
import { checkAccessibility } from './axe';

test('tabs open from the chat list, close, reorder with the keyboard, and come back after a reload', async ({
  page,
  workbench,
}) => {
  for (const title of ['Alpha', 'Beta', 'Gamma']) await workbench.call('chat.create', { title });
  await page.goto(workbench.url);
  const view = chatUi(page);
  const list = page.getByRole('navigation', { name: 'Chats' });
  for (const title of ['Alpha', 'Beta', 'Gamma']) await list.getByRole('button', { name: title, exact: true }).click();
  await expect(view.tabs).toHaveText(['Gamma', 'Alpha', 'Beta']);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Gamma');

  // Alt+Shift+← moves the focused tab left; ← and → move between tabs.
  await page.getByRole('tab', { name: 'Beta' }).click();
  await page.getByRole('tab', { name: 'Beta' }).press('Alt+Shift+ArrowLeft');
  await expect(view.tabs).toHaveText(['Gamma', 'Beta', 'Alpha']);
  await page.getByRole('tab', { name: 'Beta' }).press('ArrowRight');
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Alpha');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alpha');

  // Closing the shown tab (Delete on it) shows its neighbour, which takes the focus.
  await page.getByRole('tab', { name: 'Alpha' }).press('Delete');
  await expect(view.tabs).toHaveText(['Gamma', 'Beta']);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Beta');
  await expect(page.getByRole('tab', { name: 'Beta' })).toBeFocused();

  await page.reload();
  await expect(view.tabs).toHaveText(['Gamma', 'Beta']);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Beta');

  // A deleted chat loses its tab.
  await workbench.call('chat.delete', {
    id: ((await workbench.call('chat.list')) as { chats: { id: string; title: string }[] }).chats.find(
      (chat) => chat.title === 'Beta',
    )?.id,
  });
  await expect(view.tabs).toHaveText(['Gamma']);
  // The mouse's ×.
  await page.locator('.tab').filter({ hasText: 'Gamma' }).locator('.tab-close').click();
  await expect(view.tabs).toHaveCount(0);
});

test('changing the provider, model and approval mode of a chat', async ({ page, workbench }) => {
  await workbench.call('chat.create', { title: 'Configured' });
  await page.goto(workbench.url);
  const view = chatUi(page);
  await expect(view.providerPicker).toHaveValue('demo');
  await view.modePicker.selectOption('always-ask');
  await expect
    .poll(
      async () =>
        ((await workbench.call('approvals.getChatMode', { chatId: await chatId(workbench) })) as { mode: string }).mode,
    )
    .toBe('always-ask');
  await view.modelPicker.fill('demo-2');
  await view.modelPicker.press('Enter');
  await expect
    .poll(async () => ((await workbench.call('chat.get', { id: await chatId(workbench) })) as { model: string }).model)
    .toBe('demo-2');
});

async function chatId(workbench: { call(method: string, input?: unknown): Promise<unknown> }): Promise<string> {
  return ((await workbench.call('chat.list')) as { chats: { id: string }[] }).chats[0]?.id ?? '';
}

test('quick chat (#/quick) shows one chat in the same pane, keeps to it, and "New" starts another', async ({
  page,
  workbench,
}) => {
  await page.goto(workbench.url);
  // The page has taken the token for this tab (it leaves the address bar then): only now may the tab go elsewhere.
  await expect.poll(() => page.url()).toBe(`${workbench.origin}/`);
  await page.setViewportSize({ width: 520, height: 600 });
  // The token is kept for this tab; the quick chat window loads the page at #/quick.
  await page.goto(`${workbench.origin}/#/quick`);
  await page.reload();
  const view = chatUi(page);
  await expect(page.getByText('Quick chat', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Chats' })).toHaveCount(0);
  await view.input.fill('list files');
  await view.input.press('Enter');
  await expect(view.card('list_directory')).toBeVisible();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: 'test-results/screens/dark-40-quick-chat.png' });
  await checkAccessibility(page, 'quick chat');
  await view.card('list_directory').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.toolCalls.first()).toContainText('Done');

  await page.reload();
  await expect(view.userMessages).toHaveText(['list files']);
  await page.getByRole('button', { name: 'New' }).click();
  await expect(view.userMessages).toHaveCount(0);
  const { chats } = (await workbench.call('chat.list')) as { chats: { title: string }[] };
  expect(chats).toHaveLength(2);
  // A quick chat is titled by its first message, like any other, so the main window's list tells them apart.
  expect(chats.map((chat) => chat.title)).toContain('list files');
});
