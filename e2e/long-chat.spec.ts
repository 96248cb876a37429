import path from 'node:path';
import type { Page } from '@playwright/test';
import { createMessageStore, type NewMessage } from '../src/main/chat/message-store';
import { openDatabase } from '../src/main/storage/database';
import { chatUi, filesCall, filesReady, say, scriptedChat, shootBoth } from './chat-ui';
import { expect, test, type Workbench } from './fixtures';
import { ui } from './ui';

/**
 * A chat far longer than the message list holds at once (docs/dev/chat-list.md): scrolled to its first message and
 * back, its rows come and go while following the end, bringing the list down, and a waiting card's state hold.
 */

const EXCHANGES = 400;
const exchangeId = (index: number): string => `x-${String(index).padStart(4, '0')}`;

/** Puts EXCHANGES exchanges of text in front of the chat, straight into its database (the server stopped meanwhile). */
async function seedLongChat(workbench: Workbench, chatId: string): Promise<void> {
  await workbench.stop();
  const db = openDatabase(path.join(workbench.dataDir, 'workbench.db'));
  try {
    const store = createMessageStore(db);
    db.transaction(() => {
      for (let index = 0; index < EXCHANGES; index++) {
        const x = exchangeId(index);
        store.append(
          {
            role: 'user',
            chatId,
            exchangeId: x,
            text: `Question ${index}: tell me about item ${index}.`,
          } as NewMessage,
          1_700_000_000_000 + index * 1000,
        );
        store.append(
          {
            role: 'assistant',
            chatId,
            exchangeId: x,
            providerId: 'scripted',
            model: 'fake-large',
            reply: {
              timestamp: 0,
              turns: [{ message: `Answer ${index}.\n\n` + `- a point about item ${index}\n`.repeat(1 + (index % 4)) }],
            },
            end: 'stop',
          } as NewMessage,
          1_700_000_000_000 + index * 1000 + 500,
        );
      }
    })();
  } finally {
    db.close();
  }
  await workbench.restart();
}

/** The oldest exchange the list has in the page now. */
const oldestShown = (page: Page): Promise<number> =>
  page
    .locator('.message-list [data-exchange-id^="x-"]')
    .evaluateAll((rows) => Math.min(...rows.map((row) => Number(row.getAttribute('data-exchange-id')?.slice(2)))));

const row = (page: Page, index: number) => page.locator(`.message-list [data-exchange-id="${exchangeId(index)}"]`);

/** Wheels the list up (or down) until `done`, as a person flicking through it would. */
async function wheelUntil(page: Page, deltaY: number, done: () => Promise<boolean>): Promise<void> {
  const box = await page.locator('.message-list').boundingBox();
  if (!box) throw new Error('The message list is not on screen.');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let step = 0; step < 600 && !(await done()); step++) {
    await page.mouse.wheel(0, deltaY);
    await page.waitForTimeout(30);
  }
  expect(await done()).toBe(true);
}

async function openLongChat(
  page: Page,
  workbench: Workbench,
): Promise<{ chatId: string; fake: Awaited<ReturnType<typeof scriptedChat>>['fake'] }> {
  const { fake, chatId } = await scriptedChat(workbench, 'Long chat');
  await seedLongChat(workbench, chatId);
  await page.goto(workbench.url);
  await ui(page).itemButton('Long chat').click();
  await expect(row(page, EXCHANGES - 1)).toBeVisible();
  return { fake, chatId };
}

test('scrolled to its first message and back down, a long chat shows every exchange and follows its end again', async ({
  page,
  workbench,
}) => {
  test.setTimeout(180_000);
  const { fake } = await openLongChat(page, workbench);
  const view = chatUi(page);

  await wheelUntil(page, -2_000, () => row(page, 0).isVisible());
  await expect(page.getByText('Question 0: tell me about item 0.')).toBeInViewport();
  // The newest exchanges left the list (and the page) while it was far up.
  await expect(row(page, EXCHANGES - 1)).toHaveCount(0);
  await shootBoth(page, 'long-chat-first-message');

  // Scrolling back down brings the dropped rows back, in order, and reaches the newest exchange.
  await wheelUntil(page, 2_000, () => row(page, EXCHANGES - 1).isVisible());
  await expect(page.getByText(`Question ${EXCHANGES - 1}: tell me about item ${EXCHANGES - 1}.`)).toBeVisible();
  // At the end it follows again: a reply that grows stays in view.
  const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index + 1} of the newest answer.\n\n`);
  fake.script({ kind: 'reply', text: paragraphs });
  await say(page, 'One more question.');
  await expect(view.pane.getByText('Paragraph 30 of the newest answer.')).toBeInViewport();
});

test('far up a long chat, a message sent from elsewhere brings the list down to it', async ({ page, workbench }) => {
  test.setTimeout(180_000);
  const { fake, chatId } = await openLongChat(page, workbench);
  await wheelUntil(page, -2_000, async () => (await oldestShown(page)) <= 100);
  await expect(row(page, EXCHANGES - 1)).toHaveCount(0);
  fake.script({ kind: 'reply', text: ['Sent from another window, answered here.'] });
  await workbench.call('chat.send', { chatId, message: { role: 'user', text: 'A question from another window.' } });
  await expect(chatUi(page).pane.getByText('Sent from another window, answered here.')).toBeInViewport();
  await expect(row(page, 100)).toHaveCount(0);
});

test('a waiting card keeps what the person gave it while the list is scrolled far away from it and back', async ({
  page,
  workbench,
}) => {
  test.setTimeout(180_000);
  await filesReady(workbench);
  const { fake } = await openLongChat(page, workbench);
  const view = chatUi(page);
  fake.script(
    {
      kind: 'reply',
      text: ['I will write the file.'],
      toolCalls: [filesCall('write_file', { path: 'kept.txt', content: 'x' }, 'call_1')],
    },
    { kind: 'reply', text: ['Not written.'] },
  );
  await say(page, 'Write a file.');
  await expect(view.cards).toHaveCount(1);
  const card = view.cards.first();
  await card.getByRole('button', { name: 'Deny with reason…' }).click();
  const reason = card.getByRole('textbox', { name: 'Why deny (optional, the model is told)' });
  await reason.fill('Not in this folder');

  // Far up: the card's exchange leaves the list; then back down to it.
  await wheelUntil(page, -2_000, async () => (await oldestShown(page)) <= 150);
  await expect(view.cards).toHaveCount(0);
  await wheelUntil(page, 2_000, async () => (await view.cards.count()) > 0 && (await view.cards.first().isVisible()));
  await expect(reason).toHaveValue('Not in this folder');
  // Coming back into view does not take the keyboard to it.
  await expect(reason).not.toBeFocused();
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.pane.getByText('Not written.')).toBeVisible();
});

test("a waiting form keeps what the person typed and the refusal's marks while the list is scrolled far away and back", async ({
  page,
  workbench,
}) => {
  test.setTimeout(240_000);
  await workbench.call('mcp.add', {
    name: 'Everything',
    server: { package: '@modelcontextprotocol/server-everything' },
  });
  await workbench.call('policy.update', { tools: { Everything: { 'trigger-elicitation-request': 'auto-approve' } } });
  const { fake } = await openLongChat(page, workbench);
  const providerName = async (): Promise<string | undefined> =>
    (
      (await workbench.call('mcp.tools', { name: 'Everything' })) as { tools: { name: string; providerName: string }[] }
    ).tools.find((item) => item.name === 'trigger-elicitation-request')?.providerName;
  await expect.poll(providerName, { timeout: 60_000 }).toBeTruthy();
  const tool = (await providerName()) as string;
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_form', name: tool, argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Thanks for the details.'] },
  );
  await say(page, 'Ask me for my details.');
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  const email = card.getByLabel('String with email format');
  await expect(email).toBeVisible({ timeout: 30_000 });
  await card.getByLabel(/^String( \*)?$/).fill('Ada Lovelace');
  await email.fill('not-an-email');
  await card.getByLabel('Integer', { exact: true }).fill('7');
  await card.getByLabel('Boolean', { exact: true }).check();
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(card.getByRole('alert')).toHaveText('Not sent: one field does not fit the form (marked above).');
  // A field corrected after the refusal loses its mark; the refusal stays said until Accept checks again.
  await card.getByLabel('String with default').fill('A bright morning.');

  // Far up: the card's exchange leaves the list; then back down to it.
  await wheelUntil(page, -2_000, async () => (await oldestShown(page)) <= 150);
  await expect(card).toHaveCount(0);
  await wheelUntil(page, 2_000, async () => (await card.count()) > 0 && (await card.isVisible()));
  await expect(card.getByLabel(/^String( \*)?$/)).toHaveValue('Ada Lovelace');
  await expect(email).toHaveValue('not-an-email');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAccessibleDescription(/String with email format must be an email address/);
  await expect(card.getByLabel('Integer', { exact: true })).toHaveValue('7');
  await expect(card.getByLabel('Boolean', { exact: true })).toBeChecked();
  await expect(card.getByLabel('String with default')).toHaveValue('A bright morning.');
  await expect(card.getByRole('alert')).toHaveText('Not sent: one field does not fit the form (marked above).');
  await expect(email).not.toBeFocused();
  await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'long-chat-kept-form');

  await email.fill('ada@example.com');
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(view.pane.getByText('Thanks for the details.')).toBeVisible();
  const sent = JSON.stringify(fake.generations().at(-1)?.body);
  expect(sent).toContain('Ada Lovelace');
  expect(sent).toContain('A bright morning.');
});
