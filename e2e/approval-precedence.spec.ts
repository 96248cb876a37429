/**
 * The decision order in the UI (docs/dev/architecture.md): a tool set to "Always ask" keeps asking after
 * "Allow for this chat", the card says so beside seed 000's three buttons, and the settings page states the order.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { chatUi, filesCall, filesReady, say, scriptedChat } from './chat-ui';
import { openSettings } from './settings-helpers';

/** Each wait spans a model round trip and a tool run; the shared machine can be slow. */
const SLOW = { timeout: 20_000 };
const KEEPS_ASKING =
  "This tool will keep asking, even after 'Allow for this chat': the tool setting 'Files.write_file' is 'Always ask'.";

test("a tool set to 'Always ask': the card says 'Allow for this chat' will not stop the questions, and the next call is asked again", async ({
  page,
  workbench,
}) => {
  // Two exchanges with the Files server on a shared machine: more than the default 30 s (as chat-screens.spec.ts).
  test.setTimeout(90_000);
  await filesReady(workbench);
  const { fake, chatId } = await scriptedChat(workbench, 'Always ask');
  await workbench.call('policy.update', { tools: { Files: { write_file: 'always-ask' } } });
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Always ask');
  const view = chatUi(page);

  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'one.txt', content: '1' }, 'call_1')] },
    { kind: 'reply', text: ['Written once.'] },
  );
  await say(page, 'write one');
  const card = view.card('write_file');
  await expect(card.getByTestId('approval-keeps-asking')).toHaveText(KEEPS_ASKING, SLOW);
  for (const name of ['Allow for this chat', 'Allow once', 'Deny'])
    await expect(card.getByRole('button', { name, exact: true })).toBeEnabled();
  await card.getByRole('button', { name: 'Allow for this chat' }).click();
  await expect(view.pane.getByText('Written once.')).toBeVisible(SLOW);
  // The grant is recorded…
  const { grants } = (await workbench.call('grants.list', { chatId })) as { grants: { toolName: string }[] };
  expect(grants.map((grant) => grant.toolName)).toEqual(['write_file']);

  // …but the next call of the tool waits for a person again.
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'two.txt', content: '2' }, 'call_2')] },
    { kind: 'reply', text: ['Written twice.'] },
  );
  await say(page, 'write two');
  await expect(view.cards).toHaveCount(1, SLOW);
  const again = view.card('write_file');
  await expect(again.getByTestId('approval-keeps-asking')).toHaveText(KEEPS_ASKING, SLOW);
  await expect(fs.access(path.join(workbench.dataDir, 'sandbox', 'two.txt'))).rejects.toThrow();
  await again.getByRole('button', { name: 'Allow once' }).click();
  await expect(view.pane.getByText('Written twice.')).toBeVisible(SLOW);
  expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'two.txt'), 'utf8')).toBe('2');
});

test('the settings page states the order the pipeline follows', async ({ page, workbench }) => {
  const dialog = await openSettings(page, workbench, 'Approvals');
  await expect(
    dialog.getByText(
      '“Always ask” is never silenced by “Allow for this chat”, a chat set to “Never ask” or an allow rule.',
      { exact: false },
    ),
  ).toBeVisible();
  await expect(
    dialog.getByText(
      'A tool’s own setting beats its server’s, which beats the global mode; only deny rules and turning approvals off stand above them.',
      { exact: false },
    ),
  ).toBeVisible();
});
