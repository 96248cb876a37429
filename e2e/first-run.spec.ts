/**
 * A new user's first approval explains itself, once (docs/user/approvals.md "Your first approval"):
 * the Demo provider and the Files server, a card, the explanation of each button below it; "Got it" and it never
 * shows again, after a reload or on the next card.
 */
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot } from './chat-ui';

test('the first card comes with what each button does; "Got it" dismisses it for good', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await say(page, 'write first.txt: hello');
  await expect(view.card('write_file')).toBeVisible();
  const intro = page.getByRole('region', { name: 'Your first approval' });
  await expect(intro).toBeVisible();
  for (const term of ['Allow for this chat', 'Allow once', 'Deny', 'More…'])
    await expect(intro.getByRole('term').filter({ hasText: term })).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await intro.scrollIntoViewIfNeeded();
    await shoot(page, `${scheme}-30-first-approval`);
  }

  await intro.getByRole('button', { name: 'Got it' }).click();
  await expect(intro).toBeHidden();
  await view.card('write_file').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.cards).toHaveCount(0);

  // Never again: not on the next card, not after a reload.
  await say(page, 'write second.txt: hello');
  await expect(view.card('write_file')).toBeVisible();
  await expect(intro).toHaveCount(0);
  await page.reload();
  await expect(view.card('write_file')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your first approval' })).toHaveCount(0);
});
