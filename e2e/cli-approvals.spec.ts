/**
 * `workbench approvals` from another terminal while browser mode runs on the same data folder: the CLI lists the calls
 * waiting in the app's chats and answers them; the app sees them answered and the chat goes on.
 */
import { cliJson, runCli } from '../src/cli/testing/cli-process';
import { clockReady } from './apps-helpers';
import { chatUi, say, scriptedChat } from './chat-ui';
import { expect, test } from './fixtures';
import { filesReady } from './settings-helpers';

interface Pending {
  approvals: { request: { toolCallId: string } }[];
}
interface Listed {
  toolCalls: { chatId: string; request: { toolCallId: string; serverName: string; toolName: string } }[];
  serverRequests: unknown[];
}
interface Messages {
  activity: { status: string };
}

test('the CLI lists what waits in every chat and answers it; the app sees it answered', async ({ workbench }) => {
  test.setTimeout(240_000);
  const home = workbench.dataDir;
  await filesReady(workbench);
  const pendingOf = async (chatId: string): Promise<number> =>
    ((await workbench.call('approvals.pending', { chatId })) as Pending).approvals.length;
  const chats: string[] = [];
  for (const title of ['Listing', 'Writing']) {
    const chat = (await workbench.call('chat.create', { title })) as { id: string };
    await workbench.call('chat.send', {
      chatId: chat.id,
      message: { role: 'user', text: title === 'Listing' ? 'list files' : 'write notes.txt: hello' },
    });
    await expect.poll(() => pendingOf(chat.id)).toBe(1);
    chats.push(chat.id);
  }
  const [listing, writing] = chats as [string, string];

  const listed = await cliJson<Listed>(['approvals', 'list'], { home });
  expect(listed.toolCalls.map((call) => [call.chatId, `${call.request.serverName}.${call.request.toolName}`])).toEqual([
    [listing, 'Files.list_directory'],
    [writing, 'Files.write_file'],
  ]);
  const words = await runCli(['approvals', 'list'], { home });
  expect(words.code).toBe(0);
  expect(words.stdout).toMatch(/tool call\s+Listing\s+Files\.list_directory/);
  expect(words.stdout).toContain('"path":"notes.txt"');

  const [listCall, writeCall] = listed.toolCalls.map((call) => call.request.toolCallId) as [string, string];
  const unknown = await runCli(['approvals', 'allow', 'nope'], { home });
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("No tool call waits by the id 'nope'. List them with: workbench approvals list");

  const denied = await runCli(['approvals', 'deny', writeCall.slice(0, 10), '--reason', 'not now'], { home });
  expect(denied.stderr).toBe('');
  expect(denied.code).toBe(0);
  expect(denied.stdout).toContain(`Denied 1 call in chat ${writing.slice(0, 8)}`);
  await expect.poll(() => pendingOf(writing)).toBe(0);

  const allowed = await runCli(['approvals', 'allow', listCall], { home });
  expect(allowed.code).toBe(0);
  expect(allowed.stdout).toContain(`Allowed 1 call in chat ${listing.slice(0, 8)}; the chat went on and is idle.`);
  await expect.poll(() => pendingOf(listing)).toBe(0);
  await expect
    .poll(async () => ((await workbench.call('chat.messages', { chatId: listing })) as Messages).activity.status)
    .toBe('idle');
  expect((await runCli(['approvals', 'list'], { home })).stdout).toContain('Nothing waits for you.');
});

test("the CLI answers a view's call the app holds: the app applies it as a click on its card, recorded from the CLI", async ({
  page,
  workbench,
}) => {
  test.setTimeout(240_000);
  const home = workbench.dataDir;
  await clockReady(workbench);
  const { fake } = await scriptedChat(workbench, 'Clock');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Here is the time.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'What time is it?');
  await chatUi(page).card('get-time').getByRole('button', { name: 'Allow once' }).click();
  const view = page.getByTestId('app-view').frameLocator('iframe').frameLocator('iframe');
  const time = view.locator('#server-time');
  await expect(time).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  const first = (await time.textContent()) ?? '';

  // The view asks; its card waits in the app, and the CLI lists it.
  await view.locator('#get-time-btn').click();
  const card = page.locator('[data-testid="server-request-card"][data-kind="app-tool-call"]');
  await expect(card).toBeVisible();
  const listed = await cliJson<{ serverRequests: { id: string; kind: string; toolName?: string }[] }>(
    ['approvals', 'list'],
    { home },
  );
  expect(listed.serverRequests).toEqual([expect.objectContaining({ kind: 'app-tool-call', toolName: 'get-time' })]);
  const id = listed.serverRequests[0]?.id as string;
  const words = await runCli(['approvals', 'list'], { home });
  expect(words.stdout).toMatch(/app tool call\s+Clock\s+Clock\.get-time/);

  const allowed = await runCli(['approvals', 'allow', id], { home });
  expect(allowed.stderr).toBe('');
  expect(allowed.code).toBe(0);
  expect(allowed.stdout).toContain(
    `Allowed once: the app tool call Clock.get-time (${id.slice(0, 12)}); applied where it waits.`,
  );
  // The app ran it and the view got its result; the card went.
  await expect(card).toHaveCount(0);
  await expect(time).not.toHaveText(first, { timeout: 10_000 });
  const rows = (
    (await workbench.call('audit.query', { toolName: 'get-time' })) as {
      entries: { toolCallId: string; kind: string; decision: string | null; decidedBy: string | null }[];
    }
  ).entries.filter((entry) => entry.toolCallId === id);
  expect(rows.map((row) => [row.kind, row.decision])).toEqual([
    ['result', null],
    ['decision', 'allow_once'],
  ]);
  expect(rows[1]?.decidedBy).toMatch(/^allowed by you from the CLI \(requested by the app of Clock/);

  // Answered: a second answer is refused by name.
  const again = await runCli(['approvals', 'deny', id], { home });
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`'${id}' was already decided: Allowed once.`);
});
