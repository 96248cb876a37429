/**
 * When approvals are off (docs/user/approvals.md "When approvals are off"): a banner stays in the chat
 * and says so, with the button that turns asking back on; calls that ran only because of it say so on their blocks.
 */
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot } from './chat-ui';

test('approvals off in the settings: a banner in the chat, the call marked, and one button turns asking back on', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await workbench.call('policy.update', { mode: 'never-ask' });
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  const banner = page.getByRole('region', { name: 'Approvals are off' });
  await expect(banner).toContainText(
    'Approvals are off. Tool calls in every chat run without asking you; only deny rules still stop one.',
  );

  await say(page, 'write off.txt: ran unasked');
  const block = page.getByTestId('tool-call').filter({ hasText: 'write_file' });
  await expect(block).toContainText('Done');
  await expect(block.locator('.why-off')).toHaveText('Not asked: approvals off');
  await expect(block.locator('.why-off')).toHaveAttribute('title', 'Approvals are off (never ask)');
  await expect(view.cards).toHaveCount(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-32-approvals-off`);
  }

  await banner.getByRole('button', { name: 'Turn approvals on' }).click();
  await expect(banner).toHaveCount(0);
  expect(((await workbench.call('policy.get', {})) as { policy: { mode: string } }).policy.mode).toBe('ask');
  await say(page, 'write on.txt: asked again');
  await expect(view.card('write_file')).toBeVisible();
  // The earlier block keeps its mark: it did run without asking. Scrolled back to: the list keeps only what is near
  // the screen in the page, and the new card (with the notification offer above the chat) may push it out.
  await page.locator('.message-list').hover();
  await page.mouse.wheel(0, -5000);
  await expect(block.first().locator('.why-off')).toBeVisible();
});

test("a chat set to never ask: the banner names the chat, its calls are marked, and 'Ask again in this chat' restores asking", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  const banner = page.getByRole('region', { name: 'Approvals are off' });
  await expect(page.getByRole('combobox', { name: 'Approval mode' })).toBeVisible();
  await expect(banner).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Approval mode' }).selectOption('never-ask');
  await expect(banner).toContainText('This chat never asks.');

  await say(page, 'write quiet.txt: unasked');
  const block = page.getByTestId('tool-call').filter({ hasText: 'write_file' });
  await expect(block).toContainText('Done');
  await expect(block.locator('.why-off')).toHaveText('Not asked: this chat never asks');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-33-chat-never-asks`);
  }

  // Another chat is not affected.
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(page.getByRole('combobox', { name: 'Approval mode' })).toHaveValue('use-tool-settings');
  await expect(banner).toHaveCount(0);
  await page
    .getByRole('tablist', { name: 'Open chats' })
    .locator('.tab')
    .filter({ hasText: 'write quiet.txt' })
    .click();

  await banner.getByRole('button', { name: 'Ask again in this chat' }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Approval mode' })).toHaveValue('use-tool-settings');
  await say(page, 'write loud.txt: asked');
  await expect(view.card('write_file')).toBeVisible();
});
