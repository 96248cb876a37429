/**
 * One inbox (docs/user/approvals.md, "One inbox"): the tool calls of every chat and the servers' requests, reached
 * from the sidebar's count and Ctrl+Shift+A, decided there one by one or selected together.
 */
import { startFakeLlmServer, type FakeTurn } from '../src/main/llm/testing/fake-llm-server';
import { expect, test } from './fixtures';
import { filesReady, shoot } from './settings-helpers';

interface Pending {
  approvals: { request: { toolCallId: string } }[];
}

test.describe.configure({ timeout: 180_000 });

test('every waiting call and server request in one place, decided from there', async ({ page, workbench }) => {
  await filesReady(workbench);
  // A server request: server-everything asks the person for input while a chat runs its tool.
  const turns: FakeTurn[] = [];
  const fake = await startFakeLlmServer({
    respond: () => turns.shift() ?? { kind: 'reply', text: ['Done.'] },
  });
  try {
    await workbench.call('mcp.add', {
      name: 'Everything',
      server: { package: '@modelcontextprotocol/server-everything' },
    });
    await expect
      .poll(
        async () =>
          ((await workbench.call('mcp.tools', { name: 'Everything' })) as { tools: { name: string }[] }).tools.some(
            (tool) => tool.name === 'trigger-elicitation-request',
          ),
        { timeout: 30_000 },
      )
      .toBe(true);

    const pendingOf = async (chatId: string): Promise<number> =>
      ((await workbench.call('approvals.pending', { chatId })) as Pending).approvals.length;
    const listing = (await workbench.call('chat.create', { title: 'Listing' })) as { id: string };
    await workbench.call('chat.send', { chatId: listing.id, message: { role: 'user', text: 'list files' } });
    await expect.poll(() => pendingOf(listing.id)).toBe(1);
    const writing = (await workbench.call('chat.create', { title: 'Writing' })) as { id: string };
    await workbench.call('chat.send', {
      chatId: writing.id,
      message: { role: 'user', text: 'write notes.txt: hello' },
    });
    await expect.poll(() => pendingOf(writing.id)).toBe(1);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(workbench.url);
    await expect(page.getByTestId('inbox-count')).toContainText('2 requests wait for your answer');
    await page.keyboard.press('Control+Shift+A');
    const inbox = page.getByRole('dialog', { name: 'Waiting for you' });
    await expect(inbox).toBeVisible();
    const items = inbox.getByRole('list', { name: 'Waiting requests' }).getByTestId('inbox-item');
    await expect(items).toHaveCount(2);
    // The oldest first, focused; each with its chat, its age, its time left, why it asks and its arguments.
    const first = inbox.getByRole('listitem', { name: 'Files.list_directory in Listing' });
    await expect(first).toBeFocused();
    await expect(first).toContainText(/waiting \d+ s · times out in 5 min/);
    await expect(first).toContainText('"path"');
    const second = inbox.getByRole('listitem', { name: 'Files.write_file in Writing' });
    await expect(second).toContainText('notes.txt');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, `inbox-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Decided one by one: Deny there, and the chat's call is answered.
    await second.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect(second).toHaveCount(0);
    await expect.poll(() => pendingOf(writing.id)).toBe(0);

    // A server's request joins the inbox live, with its full card, and is answered there.
    await workbench.call('providers.add', {
      kind: 'openai',
      id: 'scripted',
      label: 'Scripted',
      baseURL: fake.baseURL('openai'),
      apiKey: 'sk-test-key-0123456789',
      defaultModel: 'fake-large',
    });
    const asking = (await workbench.call('chat.create', {
      title: 'Asking',
      providerId: 'scripted',
      model: 'fake-large',
    })) as { id: string };
    await workbench.call('policy.update', {
      tools: { Everything: { 'trigger-elicitation-request': 'auto-approve' } },
    });
    const tools = (await workbench.call('mcp.tools', { name: 'Everything' })) as {
      tools: { name: string; providerName: string }[];
    };
    const providerName = tools.tools.find((tool) => tool.name === 'trigger-elicitation-request')?.providerName ?? '';
    turns.push({ kind: 'reply', toolCalls: [{ id: 'call_elicit', name: providerName, argumentChunks: ['{}'] }] });
    await workbench.call('chat.send', { chatId: asking.id, message: { role: 'user', text: 'ask me' } });
    const request = inbox.getByRole('listitem', { name: 'Request for your input from Everything' });
    await expect(request).toBeVisible({ timeout: 30_000 });
    await expect(request).toContainText('Asking');
    // What the person typed into its form is kept while the inbox is closed, and is there when it opens again.
    await request.getByLabel(/^String( \*)?$/).fill('Ada Lovelace');
    await request.getByLabel('Integer', { exact: true }).fill('7');
    await page.keyboard.press('Escape');
    await expect(inbox).toHaveCount(0);
    await page.keyboard.press('Control+Shift+A');
    await expect(request.getByLabel(/^String( \*)?$/)).toHaveValue('Ada Lovelace');
    await expect(request.getByLabel('Integer', { exact: true })).toHaveValue('7');
    await request.getByRole('button', { name: 'Decline' }).click();
    await expect(request).toHaveCount(0);

    // The last call, allowed once.
    await first.getByRole('button', { name: 'Allow once', exact: true }).click();
    await expect(items).toHaveCount(0);
    await expect(inbox.getByRole('status').first()).toHaveText('Nothing waits for you.');
    await expect.poll(() => pendingOf(listing.id)).toBe(0);
    await expect(page.getByTestId('inbox-count')).toHaveCount(0);
  } finally {
    await fake.close();
  }
});

test('calls selected together are answered together, a batch of one chat sent once all are decided', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const pendingOf = async (chatId: string): Promise<number> =>
    ((await workbench.call('approvals.pending', { chatId })) as Pending).approvals.length;
  const chats: string[] = [];
  for (const title of ['One', 'Two']) {
    const chat = (await workbench.call('chat.create', { title })) as { id: string };
    await workbench.call('chat.send', { chatId: chat.id, message: { role: 'user', text: 'list files' } });
    await expect.poll(() => pendingOf(chat.id)).toBe(1);
    chats.push(chat.id);
  }
  await page.goto(workbench.url);
  await page.getByTestId('open-inbox').click();
  const inbox = page.getByRole('dialog', { name: 'Waiting for you' });
  await inbox.getByLabel('Select all calls').check();
  await inbox.getByRole('button', { name: 'Deny selected' }).click();
  await expect(inbox.getByTestId('inbox-item')).toHaveCount(0);
  for (const chatId of chats) await expect.poll(() => pendingOf(chatId)).toBe(0);
});
