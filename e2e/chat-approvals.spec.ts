/**
 * Seed 000's approval flow in the UI, end to end: the scripted fake LLM server (OpenAI wire format) asks for
 * real tool calls on the real Files server; the person answers in the approval cards.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { FakeLlmServer } from '../src/main/llm/testing/fake-llm-server';
import { expect, test, type Workbench } from './fixtures';
import { chatUi, filesCall, filesReady, say, scriptedChat, shoot } from './chat-ui';

/** The text of every tool result the model was sent in its last request. */
function toolResultsSent(fake: FakeLlmServer): string[] {
  const body = fake.generations().at(-1)?.body as { messages: { role: string; content: unknown }[] };
  return body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
}

async function open(page: Page, workbench: Workbench, title = 'Scripted chat'): Promise<FakeLlmServer> {
  await filesReady(workbench);
  const { fake } = await scriptedChat(workbench, title);
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  return fake;
}

/** The audit log's decision rows for a call (its id as the card holds it): what was decided, and the edit's arguments. */
async function decisionOf(
  workbench: Workbench,
  toolCallId: string,
): Promise<{ decision: string; editedArgs: unknown }[]> {
  const page = (await workbench.call('audit.query', { kind: 'decision', toolName: 'write_file' })) as {
    entries: { toolCallId: string; decision: string; editedArgs: unknown }[];
  };
  return page.entries
    .filter((entry) => entry.toolCallId === toolCallId)
    .map(({ decision, editedArgs }) => ({ decision, editedArgs }));
}

const sandbox = (workbench: Workbench, file: string): string => path.join(workbench.dataDir, 'sandbox', file);

/** Two writes in one turn: a batch of two cards. */
function scriptBatch(fake: FakeLlmServer): void {
  fake.script(
    {
      kind: 'reply',
      text: ['I will write both files.'],
      toolCalls: [
        filesCall('write_file', { path: 'a.txt', content: 'alpha' }, 'call_a'),
        filesCall('write_file', { path: 'b.txt', content: 'beta' }, 'call_b'),
      ],
    },
    { kind: 'reply', text: ['Both files are handled.'] },
  );
}

test('a single call: "Allow for this chat" runs it and later calls of that tool run without asking, with the reason shown', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    {
      kind: 'reply',
      text: ['Writing.'],
      toolCalls: [filesCall('write_file', { path: 'one.txt', content: '1' }, 'call_1')],
    },
    { kind: 'reply', text: ['Written once.'] },
  );
  await say(page, 'write one');
  await expect(view.input).toBeDisabled();
  await view.card('write_file').getByRole('button', { name: 'Allow for this chat' }).click();
  await expect(view.pane.getByText('Written once.')).toBeVisible();
  await expect(view.input).toBeEnabled();

  fake.script(
    {
      kind: 'reply',
      text: ['Writing again.'],
      toolCalls: [filesCall('write_file', { path: 'two.txt', content: '2' }, 'call_2')],
    },
    { kind: 'reply', text: ['Written twice.'] },
  );
  await say(page, 'write two');
  await expect(view.pane.getByText('Written twice.')).toBeVisible();
  await expect(view.cards).toHaveCount(0);
  const second = view.toolCalls.nth(1);
  await expect(second).toContainText('Auto-approved');
  await expect(second.getByText('Auto-approved')).toHaveAttribute('title', /Allow for this chat|grant|this chat/i);
  expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'two.txt'), 'utf8')).toBe('2');
});

test('Deny: the tool does not run, the model is told, and the call reads as denied', async ({ page, workbench }) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'no.txt', content: 'x' }, 'call_no')] },
    { kind: 'reply', text: ['Understood, I did not write it.'] },
  );
  await say(page, 'write no.txt');
  await view.card('write_file').getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.pane.getByText('Understood, I did not write it.')).toBeVisible();
  await expect(view.toolCalls.first()).toContainText('Denied');
  expect(toolResultsSent(fake).join('\n')).toContain('User denied tool invocation');
  await expect(fs.access(path.join(workbench.dataDir, 'sandbox', 'no.txt'))).rejects.toThrow();
});

test('deny with a reason: the model is told the reason', async ({ page, workbench }) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'secret.txt', content: 'x' }, 'call_r')] },
    { kind: 'reply', text: ['I will not touch it.'] },
  );
  await say(page, 'write secret');
  const card = view.card('write_file');
  await card.getByRole('button', { name: 'Deny with reason…' }).click();
  await card.getByRole('textbox', { name: /Why deny/ }).fill('not that file');
  await card.getByRole('textbox', { name: /Why deny/ }).press('Enter');
  await expect(view.pane.getByText('I will not touch it.')).toBeVisible();
  expect(toolResultsSent(fake).join('\n')).toContain('not that file');
  await expect(view.toolCalls.first()).toContainText('not that file');
});

test('a batch: each decision shows its disposition with Undo; the last one sends, and the exchange is one message', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.cards).toHaveCount(2);
  await expect(view.announcer).toHaveText(/2 tool calls need your approval/);
  await expect(view.pane.getByText('2 tool calls wait for your decision')).toBeVisible();

  const [first, second] = [view.cards.nth(0), view.cards.nth(1)];
  await first.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(first).toContainText('Approved once');
  await expect(first.getByRole('button', { name: 'Allow once', exact: true })).toHaveCount(0);
  await expect(view.input).toBeDisabled();
  // Undo brings the buttons back; nothing was sent.
  await first.getByRole('button', { name: /^Undo/ }).click();
  await expect(first.getByRole('button', { name: 'Allow once', exact: true })).toBeVisible();
  expect(fake.generations()).toHaveLength(1);
  // A screen reader hears it, and the keyboard stays in the card.
  await expect(page.getByTestId('chat-announcer')).toHaveText(
    /^Undone: Run write_file from Files waits for your decision again\./,
  );
  await expect(first).toBeFocused();

  await first.getByRole('button', { name: 'Allow for this chat' }).click();
  await expect(first).toContainText('Approved for session');
  await second.getByRole('button', { name: 'Deny', exact: true }).click();

  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  await expect(view.cards).toHaveCount(0);
  await expect(view.toolCalls).toHaveCount(2);
  await expect(view.toolCalls.nth(0)).toContainText('Done');
  await expect(view.toolCalls.nth(1)).toContainText('Denied');
  await expect(view.userMessages).toHaveCount(1);
  await expect(view.assistantMessages).toHaveCount(1);
  await expect(view.assistantMessages.first()).toContainText('I will write both files.');
  await expect(view.input).toBeEnabled();
  expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'a.txt'), 'utf8')).toBe('alpha');
  await expect(fs.access(path.join(workbench.dataDir, 'sandbox', 'b.txt'))).rejects.toThrow();
});

test('a message sent while the chat is scrolled up brings the list down: its reply and approval cards arrive in view', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1} of a long answer.\n\n`);
  fake.script({ kind: 'reply', text: paragraphs });
  await say(page, 'Tell me everything.');
  await expect(view.pane.getByText('Paragraph 40 of a long answer.')).toBeInViewport();
  // The person scrolls back up to read (the list keeps only what is on screen in the page).
  await page.getByText('Paragraph 1 of a long answer.').hover();
  await page.mouse.wheel(0, -20_000);
  await expect(view.pane.getByText('Tell me everything.')).toBeInViewport();
  await expect(view.pane.getByText('Paragraph 40 of a long answer.')).not.toBeInViewport();

  scriptBatch(fake);
  await say(page, 'Now write both files.');
  await expect(view.cards).toHaveCount(2);
  const list = page.locator('.message-list');
  const inList = async (target: Locator): Promise<boolean> => {
    const [box, area] = await Promise.all([target.boundingBox(), list.boundingBox()]);
    return box !== null && area !== null && box.y < area.y + area.height && box.y + box.height > area.y;
  };
  // A card is in view (with their arguments shown, two cards can be taller than the list: the first or the last).
  await expect.poll(async () => (await inList(view.cards.first())) || (await inList(view.cards.last()))).toBe(true);
  // And the message that asked for them, unless the list kept to the cards' end: the exchange is then taller than the
  // list (the notification offer, shown with the first waiting call, takes 75 px of it).
  await expect
    .poll(async () => (await inList(view.pane.getByText('Now write both files.'))) || (await inList(view.cards.last())))
    .toBe(true);
});

test('a call that starts waiting later in the same exchange brings the list down to its card, wherever the person had scrolled', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const { fake, chatId } = await scriptedChat(workbench, 'Scripted chat');
  await page.goto(workbench.url);
  const view = chatUi(page);
  const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1} of a long answer.\n\n`);
  fake.script(
    {
      kind: 'reply',
      text: paragraphs,
      toolCalls: [filesCall('write_file', { path: 'one.txt', content: '1' }, 'call_1')],
    },
    {
      kind: 'reply',
      text: ['One more.'],
      toolCalls: [filesCall('write_file', { path: 'two.txt', content: '2' }, 'call_2')],
    },
    { kind: 'reply', text: ['Both written.'] },
  );
  await say(page, 'Write two files.');
  await expect(view.cards).toHaveCount(1);
  // The person scrolls back up to read; the first call is then allowed from elsewhere (another window, here the API).
  await page.getByText('Paragraph 1 of a long answer.').hover();
  await page.mouse.wheel(0, -20_000);
  await expect(view.pane.getByText('Write two files.')).toBeInViewport();
  await expect(view.cards.first()).not.toBeInViewport();
  const pending = (
    (await workbench.call('approvals.pending', { chatId })) as { approvals: { request: { toolCallId: string } }[] }
  ).approvals;
  expect(pending).toHaveLength(1);
  await workbench.call('chat.send', {
    chatId,
    message: {
      role: 'approval',
      toolCallApprovals: [{ toolCallId: pending[0]?.request.toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }],
    },
  });
  // The second call waits: its card is brought into view, though the exchange is the same one.
  const waitingNow = async (): Promise<string | undefined> =>
    ((await workbench.call('approvals.pending', { chatId })) as { approvals: { request: { toolCallId: string } }[] })
      .approvals[0]?.request.toolCallId;
  await expect.poll(waitingNow).not.toBe(pending[0]?.request.toolCallId);
  await expect.poll(waitingNow).toBeDefined();
  await expect(view.cards).toHaveCount(1);
  await expect(view.cards.first()).toBeInViewport();
  await expect(view.pane.getByText('Write two files.')).not.toBeInViewport();
});

test('Allow all once and Deny all answer every undecided call', async ({ page, workbench }) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.allowAll).toHaveAttribute('title', 'Allow all once (Alt+Enter)');
  await view.allowAll.click();
  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  await expect(view.toolCalls.filter({ hasText: 'Done' })).toHaveCount(2);

  scriptBatch(fake);
  await say(page, 'write both again');
  await expect(view.cards).toHaveCount(2);
  await view.denyAll.click();
  await expect(view.pane.getByText('Both files are handled.').nth(1)).toBeVisible();
  await expect(view.toolCalls.filter({ hasText: 'Denied' })).toHaveCount(2);
});

test('keyboard: Enter allows the focused card once, Escape denies it, Alt+Enter allows all, Alt+Escape denies all', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  // Both cards first: the second arriving re-renders the list, and a card that had the focus may lose it.
  await expect(view.cards).toHaveCount(2);
  await view.cards.nth(0).focus();
  await page.keyboard.press('Enter');
  await expect(view.cards.nth(0)).toContainText('Approved once');
  await view.cards.nth(1).focus();
  await expect(view.cards.nth(1).getByRole('button', { name: 'Deny', exact: true })).toHaveAttribute(
    'title',
    'Deny (Escape)',
  );
  await page.keyboard.press('Escape');
  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  await expect(view.toolCalls.nth(0)).toContainText('Done');
  await expect(view.toolCalls.nth(1)).toContainText('Denied');

  scriptBatch(fake);
  await say(page, 'again');
  await expect(view.cards).toHaveCount(2);
  await page.keyboard.press('Alt+Enter');
  await expect(view.pane.getByText('Both files are handled.').nth(1)).toBeVisible();
  await expect(view.toolCalls.filter({ hasText: 'Done' })).toHaveCount(3);

  scriptBatch(fake);
  await say(page, 'and again');
  await expect(view.cards).toHaveCount(2);
  await page.keyboard.press('Alt+Escape');
  await expect(view.pane.getByText('Both files are handled.').nth(2)).toBeVisible();
  await expect(view.toolCalls.filter({ hasText: 'Denied' })).toHaveCount(3);
});

test('edit arguments: the form runs the edited call (tagged "edited"); invalid JSON is refused inline and cannot be sent', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'draft.txt', content: 'model text' }, 'call_e')] },
    { kind: 'reply', text: ['Saved your version.'] },
  );
  await say(page, 'write draft');
  const card = view.card('write_file');
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  // JSON first: invalid input shows its problem and blocks Allow.
  await card.getByRole('tab', { name: 'JSON' }).click();
  const json = card.getByRole('textbox', { name: 'Arguments as JSON' });
  await json.fill('{"path": "draft.txt"');
  await expect(card.getByRole('alert').first()).toContainText('Not valid JSON');
  await expect(card.getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();
  await json.fill('{"path": "draft.txt"}');
  await expect(card.getByRole('alert').first()).toContainText('Missing required property: content.');
  await expect(card.getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();
  // The form: a valid edit.
  await card.getByRole('tab', { name: 'Form' }).click();
  await card.getByRole('textbox', { name: /content/ }).fill('my text');
  await expect(card.getByText('edited', { exact: true })).toBeVisible();
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();

  await expect(view.pane.getByText('Saved your version.')).toBeVisible();
  expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'draft.txt'), 'utf8')).toBe('my text');
  await expect(view.toolCalls.first().getByText('edited', { exact: true })).toBeVisible();
  await view.toolCalls.first().getByRole('button').first().click();
  await expect(view.toolCalls.first()).toContainText('Arguments the model sent');
  await expect(view.toolCalls.first()).toContainText('model text');
});

test('an invalid edit: the Allow buttons are disabled and say why; pressing them, Enter, Alt+Enter or Done editing runs nothing; Deny still works', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'kept.txt', content: 'model text' }, 'call_i')] },
    { kind: 'reply', text: ['Not written.'] },
  );
  await say(page, 'write kept');
  const card = view.card('write_file');
  const callId = (await card.getAttribute('data-tool-call-id')) as string;
  const allowOnce = card.getByRole('button', { name: 'Allow once', exact: true });
  const allowChat = card.getByRole('button', { name: 'Allow for this chat' });
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  await card.getByRole('tab', { name: 'JSON' }).click();
  const json = card.getByRole('textbox', { name: 'Arguments as JSON' });
  await json.fill('{"path": "other.txt", "content": ');
  for (const button of [allowOnce, allowChat]) {
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription(/^Fix the arguments first: Not valid JSON/);
    // Still reachable with Tab, so a screen reader hears why.
    await button.focus();
    await expect(button).toBeFocused();
  }
  await expect(card.getByText('edit not valid', { exact: true })).toBeVisible();

  // Pressing them anyway does nothing but lead to the problem.
  await allowOnce.click({ force: true });
  await expect(json).toBeFocused();
  await allowChat.click({ force: true });
  await allowChat.press('Enter');
  // Done editing keeps the editor open, at its problem.
  await card.getByRole('button', { name: 'Done editing' }).click();
  await expect(json).toBeVisible();
  await expect(json).toBeFocused();
  await expect(json).toHaveAttribute('aria-invalid', 'true');
  // Enter on the card and Alt+Enter (Allow all once) are refused too, and say why.
  await card.focus();
  await page.keyboard.press('Enter');
  await expect(json).toBeFocused();
  await page.keyboard.press('Alt+Enter');
  await expect(view.pane.getByRole('alert').filter({ hasText: 'Nothing was allowed' })).toContainText(
    'the edited arguments of write_file are not valid',
  );
  await expect(card.getByText(/Approved/)).toHaveCount(0);
  expect(fake.generations()).toHaveLength(1);
  expect(await decisionOf(workbench, callId)).toEqual([]);

  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.pane.getByText('Not written.')).toBeVisible();
  await expect(view.toolCalls.first()).toContainText('Denied');
  expect(await decisionOf(workbench, callId)).toEqual([{ decision: 'deny', editedArgs: null }]);
  await expect(fs.access(sandbox(workbench, 'other.txt'))).rejects.toThrow();
  await expect(fs.access(sandbox(workbench, 'kept.txt'))).rejects.toThrow();
});

test("Allow all once (the button and Alt+Enter) runs each card's edit, and is refused as a whole while one card's edit is invalid", async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.cards).toHaveCount(2);
  const [first, second] = [view.cards.nth(0), view.cards.nth(1)];
  const [firstId, secondId] = [
    (await first.getAttribute('data-tool-call-id')) as string,
    (await second.getAttribute('data-tool-call-id')) as string,
  ];
  // The first card: a form edit, editor closed again.
  await first.getByRole('button', { name: 'Edit arguments' }).click();
  await first.getByRole('textbox', { name: /content/ }).fill('alpha edited');
  await first.getByRole('button', { name: 'Done editing' }).click();
  await expect(first.getByText('edited', { exact: true })).toBeVisible();
  // The second: JSON that does not parse.
  await second.getByRole('button', { name: 'Edit arguments' }).click();
  await second.getByRole('tab', { name: 'JSON' }).click();
  const json = second.getByRole('textbox', { name: 'Arguments as JSON' });
  await json.fill('{"path": "b.txt"');

  await expect(view.allowAll).toBeDisabled();
  await expect(view.allowAll).toHaveAccessibleDescription('Fix the arguments of write_file first');
  await view.allowAll.click({ force: true });
  const refusal = view.pane.getByRole('alert').filter({ hasText: 'Nothing was allowed' });
  await expect(refusal).toContainText(
    'the edited arguments of write_file are not valid. Fix them, reset the edit, or deny that call.',
  );
  await expect(json).toBeFocused();
  await page.keyboard.press('Alt+Enter');
  await expect(refusal).toBeVisible();
  await expect(view.pane.getByText(/Approved/)).toHaveCount(0);
  expect(fake.generations()).toHaveLength(1);

  // Fixed, and the editor still open with the focus in it: Alt+Enter sends what it shows.
  await json.fill('{"path": "b2.txt", "content": "beta edited"}');
  await expect(json).toBeFocused();
  await page.keyboard.press('Alt+Enter');
  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  expect(await fs.readFile(sandbox(workbench, 'a.txt'), 'utf8')).toBe('alpha edited');
  expect(await fs.readFile(sandbox(workbench, 'b2.txt'), 'utf8')).toBe('beta edited');
  await expect(fs.access(sandbox(workbench, 'b.txt'))).rejects.toThrow();
  expect(await decisionOf(workbench, firstId)).toEqual([
    { decision: 'allow_once', editedArgs: { path: 'a.txt', content: 'alpha edited' } },
  ]);
  expect(await decisionOf(workbench, secondId)).toEqual([
    { decision: 'allow_once', editedArgs: { path: 'b2.txt', content: 'beta edited' } },
  ]);

  // The button sends edits too.
  scriptBatch(fake);
  await say(page, 'write both again');
  await expect(view.cards).toHaveCount(2);
  await view.cards.nth(1).getByRole('button', { name: 'Edit arguments' }).click();
  await view.cards
    .nth(1)
    .getByRole('textbox', { name: /content/ })
    .fill('beta by button');
  await view.allowAll.click();
  await expect(view.pane.getByText('Both files are handled.').nth(1)).toBeVisible();
  expect(await fs.readFile(sandbox(workbench, 'a.txt'), 'utf8')).toBe('alpha');
  expect(await fs.readFile(sandbox(workbench, 'b.txt'), 'utf8')).toBe('beta by button');
});

test('form and JSON: switching carries what is shown over, mistakes included; JSON the form cannot show keeps the Form tab shut, saying why', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'model.txt', content: 'model text' }, 'call_f')] },
    { kind: 'reply', text: ['Written your way.'] },
  );
  await say(page, 'write it');
  const card = view.card('write_file');
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  await card.getByRole('textbox', { name: /content/ }).fill('');
  await expect(card.getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();
  // The empty required field goes over to JSON as a missing property, named there.
  await card.getByRole('tab', { name: 'JSON' }).click();
  const json = card.getByRole('textbox', { name: 'Arguments as JSON' });
  await expect(json).toHaveValue(/"path": "model.txt"/);
  await expect(json).toHaveAttribute('aria-invalid', 'true');
  await expect(card.getByRole('alert').first()).toHaveText('Missing required property: content.');
  await expect(card.getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();

  // A property the form has no field for: the Form tab stays shut and says why.
  await json.fill('{"path": "json.txt", "content": "from json", "extra": 1}');
  const formTab = card.getByRole('tab', { name: 'Form' });
  await expect(formTab).toHaveAttribute('aria-disabled', 'true');
  await expect(formTab).toHaveAccessibleDescription(/The form has no field for extra/);
  await formTab.click({ force: true });
  await expect(json).toBeVisible();
  // JSON that does not parse cannot switch either.
  await json.fill('{"path": ');
  await expect(formTab).toHaveAccessibleDescription('Fix the JSON to switch to the form.');

  await json.fill('{"path": "json.txt", "content": "from json"}');
  await expect(formTab).not.toHaveAttribute('aria-disabled', 'true');
  await formTab.click();
  await expect(card.getByRole('textbox', { name: /^path/ })).toHaveValue('json.txt');
  await expect(card.getByRole('textbox', { name: /content/ })).toHaveValue('from json');
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.pane.getByText('Written your way.')).toBeVisible();
  expect(await fs.readFile(sandbox(workbench, 'json.txt'), 'utf8')).toBe('from json');
  await expect(fs.access(sandbox(workbench, 'model.txt'))).rejects.toThrow();
});

test('Undo after an edit: the card keeps the edit, a later edit is what runs; an invalid edit denied and undone comes back as typed', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  // Both cards first: the second arriving moves the first as the list follows it (a click must not land on it).
  await expect(view.cards).toHaveCount(2);
  const [first, second] = [view.cards.nth(0), view.cards.nth(1)];
  await first.getByRole('button', { name: 'Edit arguments' }).click();
  await first.getByRole('textbox', { name: /content/ }).fill('first edit');
  await first.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(first).toContainText('Approved once');
  await expect(first.getByText('edited', { exact: true })).toBeVisible();
  await first.getByRole('button', { name: /^Undo/ }).click();
  await first.getByRole('button', { name: 'Edit arguments' }).click();
  await expect(first.getByRole('textbox', { name: /content/ })).toHaveValue('first edit');
  await first.getByRole('textbox', { name: /content/ }).fill('second edit');

  // The second card: an invalid edit, denied, undone: it comes back as typed, and Allow is still blocked.
  await second.getByRole('button', { name: 'Edit arguments' }).click();
  await second.getByRole('tab', { name: 'JSON' }).click();
  await second.getByRole('textbox', { name: 'Arguments as JSON' }).fill('{"path": "b.txt", ');
  await second.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(second).toContainText('Denied');
  await expect(second.getByRole('textbox', { name: 'Arguments as JSON' })).toBeHidden();
  await second.getByRole('button', { name: /^Undo/ }).click();
  await expect(second.getByRole('textbox', { name: 'Arguments as JSON' })).toHaveValue('{"path": "b.txt", ');
  await expect(second.getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();
  // Reset takes the model's arguments back, and Allow opens again.
  await second.getByRole('button', { name: 'Reset' }).click();
  await expect(second.getByRole('button', { name: 'Allow once', exact: true })).toBeEnabled();
  await second.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(second).toContainText('Approved once');
  await first.getByRole('button', { name: 'Allow once', exact: true }).click();

  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  expect(await fs.readFile(sandbox(workbench, 'a.txt'), 'utf8')).toBe('second edit');
  expect(await fs.readFile(sandbox(workbench, 'b.txt'), 'utf8')).toBe('beta');
});

test('a card that moved under a still pointer drops the click and says so; aimed again, or still long enough, it decides', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.cards).toHaveCount(2);
  const second = view.cards.nth(1);
  const deny = second.getByRole('button', { name: 'Deny', exact: true });
  const notice = second.getByText('This moved just as you clicked, so nothing was chosen.');
  await deny.scrollIntoViewIfNeeded();
  const box = await deny.boundingBox();
  if (!box) throw new Error('The second card has no Deny button on screen.');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const under = (px: number, py: number): Promise<unknown> =>
    page.evaluate(`document.elementFromPoint(${px}, ${py})?.textContent`);
  // The pointer rests 30 px below the second card's Deny; then the card moves down 30 px, as when something above it
  // grows, which brings Deny under the pointer; the person clicks without moving: the click was aimed at what was
  // there before. (A transform moves the card on screen without a layout change the list would answer by scrolling.)
  // The click follows the move at once: a control under a still pointer for 500 ms may take a click by design.
  await page.mouse.move(x, y + 30);
  await second.evaluate((card) => {
    card.style.transform = 'translateY(30px)';
  });
  await page.mouse.down();
  await page.mouse.up();
  expect(await under(x, y + 30)).toBe('Deny');
  await expect(notice).toBeVisible();
  await expect(second).not.toContainText('Denied');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-36-dropped-click`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Aimed again: a pointer that moved since the card did decides at once (as every other click of these tests does).
  // Here it rests where Deny goes back to, the card moves back, and a click at once is dropped again...
  await page.mouse.move(x, y);
  await second.evaluate((card) => {
    card.style.transform = '';
  });
  await page.mouse.down();
  await page.mouse.up();
  expect(await under(x, y)).toBe('Deny');
  await expect(notice).toBeVisible();
  await expect(second).not.toContainText('Denied');
  // ...but still for longer than STEADY_MS (500 ms, steady-clicks.ts), the same click, the pointer unmoved, decides.
  await page.waitForTimeout(700);
  await page.mouse.down();
  await page.mouse.up();
  await expect(second).toContainText('Denied');
  await expect(view.cards.nth(0).getByRole('button', { name: 'Allow once', exact: true })).toBeVisible();
});

test('a control the person scrolls under the pointer with the wheel takes the click at once: they watched it come', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.cards).toHaveCount(2);
  const first = view.cards.nth(0);
  const deny = first.getByRole('button', { name: 'Deny', exact: true });
  await deny.scrollIntoViewIfNeeded();
  const box = await deny.boundingBox();
  if (!box) throw new Error('The first card is not on screen.');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  // The pointer rests 60 px from Deny, inside the list, over no control; the wheel brings Deny under it (up when the
  // list has room above and the point below Deny is still in the list, down otherwise).
  const room = await first.evaluate((card) => {
    const scroller = card.closest('[data-virtuoso-scroller]');
    const rect = scroller.getBoundingClientRect();
    return {
      above: scroller.scrollTop,
      below: scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop,
      bottom: rect.bottom,
      top: rect.top,
    };
  });
  const below = room.above >= 60 && y + 60 < room.bottom - 10;
  expect(below || (room.below >= 60 && y - 60 > room.top + 10), JSON.stringify(room)).toBe(true);
  const restY = below ? y + 60 : y - 60;
  await page.mouse.move(x, restY);
  await page.mouse.wheel(0, below ? -60 : 60);
  await expect
    .poll(async () => (await deny.boundingBox())?.y, { intervals: [20] })
    .toBeCloseTo(box.y + (below ? 60 : -60), 0);
  expect(await page.evaluate(`document.elementFromPoint(${x}, ${restY})?.textContent`)).toBe('Deny');
  await page.mouse.down();
  await page.mouse.up();
  await expect(first).toContainText('Denied');
  await expect(first.getByText('This moved just as you clicked')).toHaveCount(0);
});

test('keys in the editor stay in the editor: Enter writes a new line, Escape denies nothing; Deny with reason sends no edit', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'keys.txt', content: 'model text' }, 'call_k')] },
    { kind: 'reply', text: ['Left it alone.'] },
  );
  await say(page, 'write keys');
  const card = view.card('write_file');
  const callId = (await card.getAttribute('data-tool-call-id')) as string;
  await card.getByRole('button', { name: 'Edit arguments' }).click();
  const path_ = card.getByRole('textbox', { name: /^path/ });
  await path_.fill('elsewhere.txt');
  await path_.press('Enter');
  await path_.press('Escape');
  await card.getByRole('tab', { name: 'JSON' }).click();
  const json = card.getByRole('textbox', { name: 'Arguments as JSON' });
  await json.press('Escape');
  await card.getByRole('tab', { name: 'JSON' }).press('Escape');
  await json.focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await expect(json).toHaveValue(/\n$/);
  await expect(card.getByText(/Approved|Denied/)).toHaveCount(0);
  expect(fake.generations()).toHaveLength(1);

  // Deny with a reason: Escape in the reason closes it (no deny), then the reason is sent and the edit is not.
  await card.getByRole('button', { name: 'Deny with reason…' }).click();
  const reason = card.getByRole('textbox', { name: /Why deny/ });
  await reason.press('Escape');
  await expect(reason).toBeHidden();
  await expect(card.getByText(/Denied/)).toHaveCount(0);
  await card.getByRole('button', { name: 'Deny with reason…' }).click();
  await reason.fill('not now');
  await reason.press('Enter');
  await expect(view.pane.getByText('Left it alone.')).toBeVisible();
  expect(await decisionOf(workbench, callId)).toEqual([{ decision: 'deny', editedArgs: null }]);
  expect(toolResultsSent(fake).join('\n')).toContain('not now');
  await expect(fs.access(sandbox(workbench, 'elsewhere.txt'))).rejects.toThrow();
  await expect(fs.access(sandbox(workbench, 'keys.txt'))).rejects.toThrow();
});

test('a timeout shows a countdown; when it runs out the call ends as timed out and the input opens', async ({
  page,
  workbench,
}) => {
  await workbench.call('policy.update', { timeoutSeconds: 4 });
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'late.txt', content: 'x' }, 'call_t')] },
    { kind: 'reply', text: ['Nobody answered in time.'] },
  );
  await say(page, 'write late');
  const countdown = view.card('write_file').getByTestId('countdown');
  await expect(countdown).toHaveText(/Times out in 0:0[1-4]/);
  await expect(view.cards).toHaveCount(0, { timeout: 15_000 });
  await expect(view.toolCalls.first()).toContainText('Timed out');
  await expect(page.getByTestId('chat-announcer')).toHaveText(/^Timed out, not run: write_file from Files\./);
  await expect(view.pane.getByText('Nobody answered in time.')).toBeVisible();
  await expect(view.input).toBeEnabled();
});

test('approvals that wait survive a restart of the app and can be answered after it', async ({ page, workbench }) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptBatch(fake);
  await say(page, 'write both');
  await expect(view.cards).toHaveCount(2);
  await view.cards.nth(0).getByRole('button', { name: 'Allow once', exact: true }).click();

  await workbench.restart();
  await filesReady(workbench);
  await page.goto(workbench.url);
  await expect(view.cards).toHaveCount(2);
  await expect(view.input).toBeDisabled();
  await view.allowAll.click();
  await expect(view.pane.getByText('Both files are handled.')).toBeVisible();
  await expect(view.toolCalls.filter({ hasText: 'Done' })).toHaveCount(2);
  await expect(view.assistantMessages).toHaveCount(1);
});

test('Stop ends a reply that is still streaming', async ({ page, workbench }) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script({ kind: 'reply', text: ['Thinking about it', ' for a long time'], holdOpenAfter: 2 });
  await say(page, 'take your time');
  await expect(view.stop).toBeVisible();
  await expect(view.input).toBeDisabled();
  await view.stop.click();
  await expect(view.pane.getByText('You stopped this reply.')).toBeVisible();
  await expect(view.input).toBeEnabled();
});

test('a provider error is shown in the chat with what to do, and Try again sends again', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  fake.script({ kind: 'error', error: 'rate_limit', retryAfterSeconds: 2 }, { kind: 'reply', text: ['Now it works.'] });
  await say(page, 'hello');
  await expect(view.errors).toBeVisible();
  await expect(view.errors).toContainText(/rate|limit/i);
  await expect(view.input).toBeEnabled();
  await shoot(page, 'light-35-provider-error');
  await view.errors.getByRole('button', { name: 'Try again' }).click();
  await expect(view.pane.getByText('Now it works.')).toBeVisible();
});
