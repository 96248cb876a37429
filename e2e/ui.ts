/** Locators for the renderer, by role and accessible name wherever the UI offers them. */
import type { Locator, Page } from '@playwright/test';

export function ui(page: Page) {
  const sidebar = page.getByRole('navigation', { name: 'Chats' });
  const list = sidebar.getByRole('list', { name: 'Chat list' });
  const pane = page.getByRole('main');
  return {
    sidebar,
    list,
    pane,
    newChat: page.getByTestId('new-chat'),
    search: sidebar.getByRole('searchbox', { name: 'Search chats' }),
    items: list.getByRole('listitem'),
    /** The sidebar entry of a chat, by its exact title. */
    item: (title: string): Locator =>
      list.getByRole('listitem').filter({ has: page.getByRole('button', { name: title, exact: true }) }),
    /** The sidebar button that selects a chat. */
    itemButton: (title: string): Locator => list.getByRole('button', { name: title, exact: true }),
    selectedItem: list.locator('[aria-current="page"]'),
    renameButton: (title: string): Locator => list.getByRole('button', { name: `Rename ${title}`, exact: true }),
    deleteButton: (title: string): Locator => list.getByRole('button', { name: `Delete ${title}`, exact: true }),
    titleEditor: page.getByRole('textbox', { name: 'Chat title' }),
    titleProblem: page.getByRole('alert').filter({ hasText: 'A title cannot be empty.' }),
    welcome: pane.getByRole('heading', { name: 'Welcome to AI Workbench' }),
    noChatsYet: sidebar.getByText('No chats yet.'),
    chatTitle: pane.getByRole('heading', { level: 1 }),
    chatTitleButton: pane.getByRole('heading', { level: 1 }).getByRole('button'),
    emptyChat: pane.getByRole('heading', { name: 'No messages yet' }),
    deleteDialog: page.getByRole('dialog', { name: 'Delete this chat?' }),
    missingToken: page.getByRole('heading', { name: 'Open AI Workbench from its link' }),
    banner: pane.getByRole('status'),
  };
}

/** Clicks "New chat" and waits until the new chat is selected and shown. */
export async function createChat(page: Page): Promise<void> {
  const view = ui(page);
  const before = await view.items.count();
  await view.newChat.click();
  await view.items.nth(before).waitFor();
  await view.emptyChat.waitFor();
}
