/** Screenshots of the chat's states, light and dark, in test-results/screens/ (each state asserted first). */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { chatUi, filesCall, filesReady, say, scriptedChat, shoot } from './chat-ui';

const RICH = [
  'Here is the **plan**, with a table and some code:\n\n',
  '| Step | Owner | Status |\n| --- | --- | :---: |\n| Read the notes | model | done |\n| Write the summary | you | next |\n\n',
  '```ts\nexport function summarize(lines: string[]): string {\n  // keep the first three lines\n  return lines.slice(0, 3).join("\\n");\n}\n```\n\n',
  '- [x] list the files\n- [ ] write `summary.md`\n\n> Tool calls run only when you allow them.',
];

async function hideCaret(page: Page): Promise<void> {
  await page.mouse.move(2, 2);
}

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: chat states — rich reply, auto-approved and failed calls, a batch, editing, deny with reason, tabs`, async ({
    page,
    workbench,
  }) => {
    test.setTimeout(90_000);
    await page.emulateMedia({ colorScheme: scheme });
    await filesReady(workbench);
    await workbench.call('policy.update', {
      tools: { Files: { list_directory: 'auto-approve', read_text_file: 'auto-approve' } },
    });
    const { fake } = await scriptedChat(workbench, 'Release checklist');
    await workbench.call('chat.create', {
      title: 'Filesystem server setup',
      providerId: 'scripted',
      model: 'fake-large',
    });
    await page.goto(workbench.url);
    const view = chatUi(page);
    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: 'Filesystem server setup', exact: true })
      .click();
    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: 'Release checklist', exact: true })
      .click();
    await expect(view.tabs).toHaveCount(2);

    fake.script(
      {
        kind: 'reply',
        text: ['Let me look at the folder first.'],
        toolCalls: [
          filesCall('list_directory', { path: '.' }, 'call_ls'),
          filesCall('read_text_file', { path: 'missing.md' }, 'call_missing'),
        ],
      },
      { kind: 'reply', text: RICH },
    );
    await say(page, 'Plan the release and show me a table.');
    await expect(view.pane.getByRole('table')).toBeVisible();
    await expect(view.toolCalls.filter({ hasText: 'Auto-approved' })).toHaveCount(2);
    await hideCaret(page);
    await shoot(page, `${scheme}-30-rich-reply`);
    await view.toolCalls.nth(1).getByRole('button').first().click();
    await expect(view.toolCalls.nth(1)).toContainText('Why:');
    await shoot(page, `${scheme}-31-tool-call-failed-expanded`);
    await view.toolCalls.nth(1).getByRole('button').first().click();

    fake.script(
      {
        kind: 'reply',
        text: ['I will write the two files.'],
        toolCalls: [
          filesCall('write_file', { path: 'summary.md', content: '# Summary\n\nAll good.' }, 'call_w1'),
          filesCall('write_file', { path: 'notes.txt', content: 'note' }, 'call_w2'),
        ],
      },
      { kind: 'reply', text: ['Done.'] },
    );
    await say(page, 'Now write the summary and the notes.');
    await expect(view.cards).toHaveCount(2);
    await view.cards.nth(0).getByRole('button', { name: 'Allow once', exact: true }).click();
    await expect(view.cards.nth(0)).toContainText('Approved once');
    await view.cards.nth(1).focus();
    await shoot(page, `${scheme}-32-batch-one-decided`);

    await view.cards.nth(1).getByRole('button', { name: 'Edit arguments' }).click();
    await view.cards
      .nth(1)
      .getByRole('textbox', { name: /content/ })
      .fill('an edited note');
    await expect(view.cards.nth(1).getByText('edited', { exact: true })).toBeVisible();
    await hideCaret(page);
    await shoot(page, `${scheme}-33-edit-form`);
    await view.cards.nth(1).getByRole('tab', { name: 'JSON' }).click();
    await view.cards.nth(1).getByRole('textbox', { name: 'Arguments as JSON' }).fill('{"path": 1}');
    await expect(view.cards.nth(1).getByRole('alert').first()).toBeVisible();
    await shoot(page, `${scheme}-34-edit-json-invalid`);
    // Done editing with invalid JSON stays at the problem; Allow is off and says why.
    await view.cards.nth(1).getByRole('button', { name: 'Done editing' }).click();
    await expect(view.cards.nth(1).getByRole('textbox', { name: 'Arguments as JSON' })).toBeFocused();
    await expect(view.cards.nth(1).getByRole('button', { name: 'Allow once', exact: true })).toBeDisabled();
    await hideCaret(page);
    await shoot(page, `${scheme}-38-edit-invalid-done`);

    await view.cards.nth(1).getByRole('button', { name: 'Deny with reason…' }).click();
    await view.cards
      .nth(1)
      .getByRole('textbox', { name: /Why deny/ })
      .fill('keep the old notes');
    await shoot(page, `${scheme}-36-deny-with-reason`);
    await view.cards
      .nth(1)
      .getByRole('textbox', { name: /Why deny/ })
      .press('Enter');
    await expect(view.pane.getByText('Done.')).toBeVisible();
    await hideCaret(page);
    await shoot(page, `${scheme}-37-batch-resolved`);
  });
}
