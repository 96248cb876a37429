/** Settings → Approvals → Test a call, and the rules that never decide flagged where they are listed. */
import { expect, test } from './fixtures';
import { filesReady, openSettings, runApprovalCycle, shoot } from './settings-helpers';

test('the rule tester names what decides a call, step by step; a past call fills it; dead rules are flagged', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await runApprovalCycle(workbench, { title: 'Listing', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
  await workbench.call('policy.update', {
    rules: {
      add: [
        {
          id: 'notes',
          effect: 'allow',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/path', match: 'glob', value: '/notes/**' }],
        },
        { id: 'no-writes', effect: 'deny', server: '*', tool: 'write_*' },
      ],
    },
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'Approvals');

  // The rule an earlier rule always beats says so on its own line, naming the rule that wins.
  await expect(dialog.getByTestId('rule-finding-notes')).toContainText(
    "Rule #1 ('notes') never decides: Rule #2 ('no-writes') is checked first",
  );
  await expect(dialog.getByTestId('rule-finding-no-writes')).toHaveCount(0);
  await expect(dialog.getByTestId('policy-warnings')).toHaveCount(0);

  const tester = dialog.getByTestId('rule-tester');
  await tester.getByLabel('Server').fill('Files');
  await tester.getByLabel('Tool').fill('write_file');
  await tester.getByLabel('Arguments (JSON)').fill('{"path": "/notes/a.md", "content": "x"}');
  await tester.getByRole('button', { name: 'Test' }).click();
  const result = tester.getByTestId('rule-test-result');
  await expect(result).toContainText('Refused: Denied by your rule #2: * write_*');
  await expect(result.getByRole('list', { name: 'Every step looked at' }).getByRole('listitem').last()).toContainText(
    '(decided)',
  );
  await result.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `rule-tester-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Bad arguments are named beside the field; nothing is asked of main.
  await tester.getByLabel('Arguments (JSON)').fill('{path:');
  await tester.getByRole('button', { name: 'Test' }).click();
  await expect(tester.getByRole('alert').filter({ hasText: 'Not JSON' })).toBeVisible();
  await expect(result).toHaveCount(0);

  // A past call from the audit log fills the form: the listing the demo model asked for asks by default.
  await tester.getByLabel('From a past call (optional)').selectOption({ index: 1 });
  await expect(tester.getByLabel('Server')).toHaveValue('Files');
  await expect(tester.getByLabel('Tool')).toHaveValue('list_directory');
  await tester.getByRole('button', { name: 'Test' }).click();
  await expect(result).toContainText('Asks you:');
});

test("the rule tester tests a call in a chosen chat: that chat's grants count and its past calls are offered", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await runApprovalCycle(workbench, { title: 'Listing', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
  // "Allow for this chat" in a second chat: a grant of list_directory there only.
  await runApprovalCycle(workbench, { title: 'Granted', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' });
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'Approvals');
  const tester = dialog.getByTestId('rule-tester');
  const chat = tester.getByLabel('In the chat');
  await expect(chat).toHaveValue('');
  await chat.selectOption({ label: 'Granted' });
  const past = tester.getByLabel('From a past call (optional)');
  // Only that chat's calls: its one listing.
  await expect(past.locator('option')).toHaveCount(2);
  await past.selectOption({ index: 1 });
  await expect(tester.getByLabel('Tool')).toHaveValue('list_directory');
  await tester.getByRole('button', { name: 'Test' }).click();
  const result = tester.getByTestId('rule-test-result');
  await expect(result).toContainText('Runs without asking');
  await result.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `rule-tester-chat-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // The same call in the other chat, or in none, asks: the grant is that chat's alone.
  await chat.selectOption({ label: 'Listing' });
  await tester.getByRole('button', { name: 'Test' }).click();
  await expect(result).toContainText('Asks you:');
  await chat.selectOption('');
  await tester.getByRole('button', { name: 'Test' }).click();
  await expect(result).toContainText('Asks you:');
});
