/**
 * The first slice through every layer: the React UI in Chromium, the browser bridge, the WebSocket,
 * the dispatcher, the chat service and SQLite, all real (browser mode, built output).
 */
import { expect, test } from './fixtures';
import { chatUi, say, shoot } from './chat-ui';
import { createChat, ui } from './ui';

test('a fresh install shows the welcome screen and no chats', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.welcome).toBeVisible();
  await expect(view.noChatsYet).toBeVisible();
  await expect(view.items).toHaveCount(0);
  await expect(view.newChat).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Start a new chat' })).toBeVisible();
});

test('"New chat" creates a chat, lists it, selects it and shows the empty chat view', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const view = ui(page);
  await view.newChat.click();

  await expect(view.items).toHaveCount(1);
  await expect(view.itemButton('New chat')).toBeVisible();
  await expect(view.selectedItem).toHaveText('New chat');
  await expect(view.chatTitle).toHaveText('New chat');
  await expect(view.emptyChat).toBeVisible();
  await expect(view.welcome).toBeHidden();
  await expect(view.noChatsYet).toBeHidden();

  // A second chat: both are listed, exactly one is selected.
  await view.newChat.click();
  await expect(view.items).toHaveCount(2);
  await expect(view.selectedItem).toHaveCount(1);

  const { chats } = (await workbench.call('chat.list')) as { chats: { title: string }[] };
  expect(chats.map((chat) => chat.title)).toEqual(['New chat', 'New chat']);
});

test('the welcome screen\'s "Start a new chat" creates a chat', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const view = ui(page);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  await expect(view.items).toHaveCount(1);
  await expect(view.emptyChat).toBeVisible();
});

test.describe('renaming', () => {
  test('from the sidebar pencil: Enter saves, Escape cancels', async ({ page, workbench }) => {
    await page.goto(workbench.url);
    const view = ui(page);
    await createChat(page);

    await view.renameButton('New chat').click();
    await expect(view.titleEditor).toBeFocused();
    await expect(view.titleEditor).toHaveValue('New chat');
    await view.titleEditor.fill('Quarterly report');
    await view.titleEditor.press('Enter');

    await expect(view.titleEditor).toBeHidden();
    await expect(view.itemButton('Quarterly report')).toBeVisible();
    await expect(view.chatTitle).toHaveText('Quarterly report');

    await view.renameButton('Quarterly report').click();
    await view.titleEditor.fill('Something I do not want');
    await view.titleEditor.press('Escape');
    await expect(view.titleEditor).toBeHidden();
    await expect(view.itemButton('Quarterly report')).toBeVisible();
    await expect(view.itemButton('Something I do not want')).toHaveCount(0);

    // The server holds the saved title, not the cancelled one.
    const { chats } = (await workbench.call('chat.list')) as { chats: { title: string }[] };
    expect(chats.map((chat) => chat.title)).toEqual(['Quarterly report']);
  });

  test('by clicking the title in the chat header: Enter saves, Escape cancels', async ({ page, workbench }) => {
    await page.goto(workbench.url);
    const view = ui(page);
    await createChat(page);

    await view.chatTitleButton.click();
    await expect(view.titleEditor).toBeFocused();
    await view.titleEditor.fill('Trip planning');
    await view.titleEditor.press('Enter');
    await expect(view.chatTitle).toHaveText('Trip planning');
    await expect(view.itemButton('Trip planning')).toBeVisible();

    await view.chatTitleButton.click();
    await view.titleEditor.fill('Not this');
    await view.titleEditor.press('Escape');
    await expect(view.chatTitle).toHaveText('Trip planning');
    await expect(view.itemButton('Trip planning')).toBeVisible();
  });

  test('an empty title shows the problem inline and keeps the editor open', async ({ page, workbench }) => {
    await page.goto(workbench.url);
    const view = ui(page);
    await createChat(page);

    for (const open of [() => view.renameButton('New chat').click(), () => view.chatTitleButton.click()]) {
      await open();
      await view.titleEditor.fill('   ');
      await view.titleEditor.press('Enter');
      await expect(view.titleProblem).toBeVisible();
      await expect(view.titleEditor).toBeVisible();
      await expect(view.titleEditor).toHaveAttribute('aria-invalid', 'true');

      // Typing clears the problem; Escape leaves the title as it was.
      await view.titleEditor.fill('x');
      await expect(view.titleProblem).toBeHidden();
      await view.titleEditor.press('Escape');
      await expect(view.titleEditor).toBeHidden();
      await expect(view.chatTitle).toHaveText('New chat');
    }
  });

  test('F2 on a sidebar entry starts renaming it', async ({ page, workbench }) => {
    await page.goto(workbench.url);
    const view = ui(page);
    await createChat(page);
    await view.itemButton('New chat').focus();
    await page.keyboard.press('F2');
    await expect(view.titleEditor).toBeFocused();
    await view.titleEditor.fill('Renamed with the keyboard');
    await view.titleEditor.press('Enter');
    await expect(view.itemButton('Renamed with the keyboard')).toBeVisible();
  });
});

test('deleting asks first: Cancel keeps the chat, Delete removes it', async ({ page, workbench }) => {
  await workbench.call('chat.create', { title: 'Keep me' });
  await workbench.call('chat.create', { title: 'Remove me' });
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.items).toHaveCount(2);

  await view.itemButton('Remove me').click();
  await view.deleteButton('Remove me').click();
  await expect(view.deleteDialog).toBeVisible();
  await expect(view.deleteDialog).toContainText('“Remove me” and everything in it will be deleted');
  await expect(view.deleteDialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await view.deleteDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(view.deleteDialog).toBeHidden();
  await expect(view.items).toHaveCount(2);

  // Escape cancels as well.
  await view.deleteButton('Remove me').click();
  await expect(view.deleteDialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(view.deleteDialog).toBeHidden();
  await expect(view.items).toHaveCount(2);

  await view.deleteButton('Remove me').click();
  await view.deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(view.deleteDialog).toBeHidden();
  await expect(view.items).toHaveCount(1);
  await expect(view.itemButton('Remove me')).toHaveCount(0);
  // The remaining chat is selected in place of the deleted one.
  await expect(view.selectedItem).toHaveText('Keep me');
  await expect(view.chatTitle).toHaveText('Keep me');

  const { chats } = (await workbench.call('chat.list')) as { chats: { title: string }[] };
  expect(chats.map((chat) => chat.title)).toEqual(['Keep me']);

  // Deleting the last chat leads back to the welcome screen.
  await view.deleteButton('Keep me').click();
  await view.deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(view.items).toHaveCount(0);
  await expect(view.welcome).toBeVisible();
  await expect(view.noChatsYet).toBeVisible();
});

test('chats persist across a server restart', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const view = ui(page);
  await createChat(page);
  await view.renameButton('New chat').click();
  await view.titleEditor.fill('Survives restarts');
  await view.titleEditor.press('Enter');
  await expect(view.itemButton('Survives restarts')).toBeVisible();
  await createChat(page);

  const before = { url: workbench.url, token: workbench.token };
  await workbench.restart();
  expect(workbench.token).not.toBe(before.token);

  await page.goto(workbench.url);
  await expect(view.items).toHaveCount(2);
  await expect(view.itemButton('Survives restarts')).toBeVisible();
  await expect(view.itemButton('New chat')).toBeVisible();
  await expect(view.emptyChat).toBeVisible();
});

test('search filters the chat list', async ({ page, workbench }) => {
  for (const title of ['Alpha project', 'Beta notes', 'Gamma alpha review'])
    await workbench.call('chat.create', { title });
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.items).toHaveCount(3);

  await view.search.fill('alpha');
  await expect(view.items).toHaveCount(2);
  await expect(view.itemButton('Alpha project')).toBeVisible();
  await expect(view.itemButton('Gamma alpha review')).toBeVisible();
  await expect(view.itemButton('Beta notes')).toHaveCount(0);

  await view.search.fill('  NOTES ');
  await expect(view.items).toHaveCount(1);
  await expect(view.itemButton('Beta notes')).toBeVisible();

  await view.search.fill('zzz');
  await expect(view.items).toHaveCount(0);
  await expect(view.sidebar.getByText('No chat matches “zzz”.')).toBeVisible();

  await view.search.fill('');
  await expect(view.items).toHaveCount(3);

  // The clear button and Escape both empty the search.
  await view.search.fill('beta');
  await expect(view.items).toHaveCount(1);
  await view.sidebar.getByRole('button', { name: 'Clear search' }).click();
  await expect(view.search).toHaveValue('');
  await expect(view.search).toBeFocused();
  await expect(view.items).toHaveCount(3);
  await view.search.fill('gamma');
  await expect(view.items).toHaveCount(1);
  await view.search.press('Escape');
  await expect(view.search).toHaveValue('');
  await expect(view.items).toHaveCount(3);
});

test('a long chat list: the first chats come with the first screen and every one of 300 follows', async ({
  page,
  workbench,
}) => {
  for (let index = 1; index <= 300; index++) await workbench.call('chat.create', { title: `Chat ${index}` });
  await page.goto(workbench.url);
  const view = ui(page);
  // The list is rendered in steps after the first paint (Sidebar.tsx); all of it is there a few frames later.
  await expect(view.items).toHaveCount(300);
  await expect(view.itemButton('Chat 1')).toHaveCount(1);
  await view.itemButton('Chat 1').click();
  await expect(view.chatTitle).toHaveText('Chat 1');
  // The list scrolled to its end: the last chat is there, in light and in dark.
  await view.itemButton('Chat 1').scrollIntoViewIfNeeded();
  await shoot(page, 'light-13-long-chat-list');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'dark-13-long-chat-list');
  await view.search.fill('Chat 2');
  // "Chat 2", "Chat 20"–"Chat 29" and "Chat 200"–"Chat 299".
  await expect(view.items).toHaveCount(111);
});

test('a change made in one tab appears in another without a reload', async ({ context, workbench }) => {
  const first = await context.newPage();
  const second = await context.newPage();
  await first.goto(workbench.url);
  await second.goto(workbench.url);
  const one = ui(first);
  const two = ui(second);
  await expect(one.welcome).toBeVisible();
  await expect(two.welcome).toBeVisible();

  await one.newChat.click();
  await expect(two.items).toHaveCount(1);
  await expect(two.itemButton('New chat')).toBeVisible();

  await two.itemButton('New chat').click();
  await expect(two.emptyChat).toBeVisible();
  await two.renameButton('New chat').click();
  await two.titleEditor.fill('Shared between tabs');
  await two.titleEditor.press('Enter');
  await expect(one.itemButton('Shared between tabs')).toBeVisible();
  await expect(one.chatTitle).toHaveText('Shared between tabs');

  await one.deleteButton('Shared between tabs').click();
  await one.deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(two.items).toHaveCount(0);
  await expect(two.welcome).toBeVisible();

  // Changes from another client (here: a plain WebSocket, as the CLI would be) are pushed too.
  await workbench.call('chat.create', { title: 'From elsewhere' });
  await expect(one.itemButton('From elsewhere')).toBeVisible();
  await expect(two.itemButton('From elsewhere')).toBeVisible();
});

test('the token leaves the address bar, and a reload still works', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.welcome).toBeVisible();
  await expect.poll(() => page.url()).toBe(`${workbench.origin}/`);
  expect(page.url()).not.toContain(workbench.token);

  await createChat(page);
  await page.reload();
  await expect(view.items).toHaveCount(1);
  await expect(view.emptyChat).toBeVisible();
  await expect(view.missingToken).toBeHidden();
  expect(page.url()).toBe(`${workbench.origin}/`);
});

test('a reply that ends while the person types in the search leaves the focus and the text there', async ({
  page,
  workbench,
}) => {
  const chat = (await workbench.call('chat.create', { title: 'Alpha project' })) as { id: string };
  await workbench.call('chat.create', { title: 'Beta notes' });
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.items).toHaveCount(2);
  await view.itemButton('Alpha project').click();
  const message = page.getByRole('main').getByRole('textbox', { name: 'Message' });
  await expect(message).toBeFocused();

  await view.search.click();
  await view.search.pressSequentially('al');
  // A reply in the open chat starts and ends (sent from elsewhere: the CLI, another window) while the search has the focus.
  await workbench.call('chat.send', { chatId: chat.id, message: { role: 'user', text: 'hello' } });
  await expect(page.getByRole('main').getByText('hello', { exact: true })).toBeVisible();
  await expect(message).toBeEnabled();
  await expect(view.search).toBeFocused();
  await view.search.pressSequentially('pha');
  await expect(view.search).toHaveValue('alpha');
  await expect(message).toHaveValue('');
  await expect(view.items).toHaveCount(1);
});

test("the exchanges' list that cannot load says so, and a reload shows the chat with nothing lost", async ({
  page,
  workbench,
}) => {
  // As when the app was updated while its page stayed open: the page asks for a chunk the server cannot give.
  await page.route('**/assets/MessageList-*.js', (route) => route.abort());
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  await say(page, 'hello');
  await expect(
    page.getByRole('main').getByText(/^Could not load the messages: .+\. Reload to try again\.$/),
  ).toBeVisible();

  await page.unroute('**/assets/MessageList-*.js');
  await page.reload();
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'hello', exact: true }).click();
  await expect(chatUi(page).userMessages).toHaveText(['hello']);
  await expect(chatUi(page).assistantMessages).toHaveCount(1);
});
