/**
 * Issue #6 "done when": a new user, with the Demo provider and the default Files server, asks to write a file,
 * sees the card, allows it once, and sees one clean answer.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot, WARNING_TEXT } from './chat-ui';

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: the Demo provider writes a file after "Allow once" and reads as one clean answer`, async ({
    page,
    workbench,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await filesReady(workbench);
    await page.goto(workbench.url);
    await page.getByRole('button', { name: 'Start a new chat' }).click();
    const view = chatUi(page);
    await expect(view.providerPicker).toHaveValue('demo');
    await shoot(page, `${scheme}-20-new-chat`);

    await say(page, 'write notes.txt: hello from the demo');
    const card = view.card('write_file');
    await expect(card).toBeVisible();
    await expect(card.getByRole('heading', { name: 'Allow tool call from Files?' })).toBeVisible();
    await expect(card).toContainText(WARNING_TEXT);
    await expect(card.locator('strong', { hasText: 'Review each action carefully before approving' })).toBeVisible();
    for (const name of ['Allow for this chat', 'Allow once', 'Deny'])
      await expect(card.getByRole('button', { name, exact: true })).toBeVisible();
    await expect(view.input).toBeDisabled();
    await expect(view.announcer).toHaveText('Approval needed: Run write_file from Files.');
    // The exact arguments are in view without a click.
    await expect(card.getByLabel('Arguments')).toContainText('hello from the demo');
    await shoot(page, `${scheme}-21-approval-card`);

    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
    await expect(view.cards).toHaveCount(0);
    await expect(view.toolCalls).toHaveCount(1);
    await expect(view.toolCalls.first()).toContainText('Done');
    await expect(view.input).toBeEnabled();
    // One exchange, one assistant message: the approval did not split it.
    await expect(view.userMessages).toHaveCount(1);
    await expect(view.assistantMessages).toHaveCount(1);
    await expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'notes.txt'), 'utf8')).toBe(
      'hello from the demo',
    );
    await shoot(page, `${scheme}-23-one-clean-answer`);

    await view.toolCalls.first().getByRole('button').first().click();
    await expect(view.toolCalls.first()).toContainText("You chose 'Allow once'");
    await shoot(page, `${scheme}-24-tool-call-expanded`);
  });
}
