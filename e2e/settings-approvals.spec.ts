/** Settings → Approvals in browser mode: global mode, timeout, server and tool settings, rules, chat grants. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { filesReady, openSettings, runApprovalCycle, shoot } from './settings-helpers';

interface PolicyView {
  policy: {
    mode: string;
    timeoutSeconds: number;
    servers: Record<string, { autoApprove: boolean; sampling?: string; samplingTokenBudget?: number }>;
    tools: Record<string, Record<string, string>>;
    rules: { id: string; effect: string; server: string; tool: string; args?: unknown[] }[];
  };
}
const policy = async (call: (method: string) => Promise<unknown>): Promise<PolicyView['policy']> =>
  ((await call('policy.get')) as PolicyView).policy;

test('the global mode warns before and while approvals are off; the timeout is saved', async ({ page, workbench }) => {
  const dialog = await openSettings(page, workbench, 'Approvals');
  const modes = dialog.getByRole('radiogroup', { name: 'Global mode' });
  await expect(modes.getByRole('radio', { name: /Ask before every tool call/ })).toBeChecked();
  await expect(dialog.getByTestId('never-ask-warning')).toBeHidden();

  // Never ask: a confirmation first; "Keep asking" changes nothing.
  await modes.getByRole('radio', { name: /Never ask/ }).click();
  const confirm = page.getByRole('dialog', { name: 'Turn approvals off?' });
  await confirm.getByRole('button', { name: 'Keep asking' }).click();
  expect((await policy(workbench.call)).mode).toBe('ask');
  await expect(modes.getByRole('radio', { name: /Ask before every tool call/ })).toBeChecked();

  await modes.getByRole('radio', { name: /Never ask/ }).click();
  await confirm.getByRole('button', { name: 'Turn approvals off' }).click();
  await expect(dialog.getByTestId('never-ask-warning')).toContainText('Approvals are off.');
  await expect(dialog.getByTestId('policy-warnings')).toBeVisible();
  expect((await policy(workbench.call)).mode).toBe('never-ask');

  await modes.getByRole('radio', { name: /read-only tools of trusted servers/ }).click();
  await expect(modes.getByRole('radio', { name: /read-only tools of trusted servers/ })).toBeChecked();
  await expect(dialog.getByTestId('never-ask-warning')).toBeHidden();
  await expect.poll(async () => (await policy(workbench.call)).mode).toBe('auto-approve-read-only-trusted');

  // The timeout: a bad value is refused next to the field, a good one saved.
  const timeout = dialog.getByLabel('Seconds a call waits for you');
  await expect(timeout).toHaveValue('300');
  await timeout.fill('-5');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog.getByRole('alert').filter({ hasText: 'Enter whole seconds' })).toBeVisible();
  await timeout.fill('90');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved' })).toContainText('1 minute 30 seconds');
  expect((await policy(workbench.call)).timeoutSeconds).toBe(90);
});

test('server and tool settings: filter, set, only changed, reset to defaults', async ({ page, workbench }) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'Approvals');
  const settings = dialog.getByRole('list', { name: 'Server and tool settings' });
  const filter = dialog.getByRole('searchbox', { name: 'Filter servers and tools' });
  await filter.fill('write');
  const files = settings.getByRole('listitem', { name: 'Files' });
  await expect(files.getByRole('row')).toHaveCount(1);
  await files.getByLabel('Approval for Files write_file').selectOption('always-ask');
  await expect.poll(async () => (await policy(workbench.call)).tools).toEqual({ Files: { write_file: 'always-ask' } });

  await filter.fill('');
  await files.getByRole('switch', { name: 'Auto-approve all tools of Files' }).click();
  await expect.poll(async () => (await policy(workbench.call)).servers.Files?.autoApprove).toBe(true);
  await expect(dialog.getByTestId('policy-warnings')).toBeVisible();

  await dialog.getByLabel('Only changed settings').check();
  await expect(files.getByRole('row')).toHaveCount(1);
  await expect(files.getByRole('row')).toContainText('write_file');
  await dialog.getByLabel('Only changed settings').uncheck();

  await dialog.getByRole('button', { name: 'Reset to defaults' }).click();
  await page
    .getByRole('dialog', { name: 'Reset server and tool settings?' })
    .getByRole('button', { name: 'Reset' })
    .click();
  await expect
    .poll(async () => {
      const current = await policy(workbench.call);
      return { servers: current.servers, tools: current.tools };
    })
    .toEqual({ servers: {}, tools: {} });
  await expect(files.getByRole('switch', { name: 'Auto-approve all tools of Files' })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  await expect(dialog.getByRole('button', { name: 'Reset to defaults' })).toBeDisabled();
});

test('a rule is refused with its reason under the field, then saved, moved and deleted', async ({
  page,
  workbench,
}) => {
  const dialog = await openSettings(page, workbench, 'Approvals');
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  const editor = page.getByTestId('rule-editor');
  await editor.getByLabel('Server (glob)').fill('Files');
  await editor.getByLabel('Tool (glob)').fill('write_*');
  await editor.getByRole('button', { name: 'Add condition' }).click();
  await editor.getByLabel('Match').selectOption('regex');
  await editor.getByLabel('Value').fill('(a+)+$');
  await editor.getByRole('button', { name: 'Save rule' }).click();
  const valueProblem = editor.getByLabel('Value');
  await expect(valueProblem).toHaveAttribute('aria-invalid', 'true');
  await expect(editor.getByRole('alert').first()).toContainText('can take exponential time');
  expect((await policy(workbench.call)).rules).toEqual([]);

  await editor.getByLabel('Match').selectOption('glob');
  await editor.getByLabel('Value').fill('/etc/**');
  await editor.getByLabel('Note (optional)').fill('system files');
  await editor.getByRole('button', { name: 'Save rule' }).click();
  await expect(editor).toBeHidden();
  const rules = dialog.getByRole('list', { name: 'Your rules' });
  await expect(rules.getByRole('listitem')).toHaveCount(1);
  await expect(rules.getByRole('listitem').first()).toContainText('Files · write_* when /path glob /etc/**');
  const saved = (await policy(workbench.call)).rules;
  expect(saved).toMatchObject([
    { effect: 'deny', server: 'Files', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] },
  ]);

  // A second rule, then move it first.
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  await editor.getByLabel('Effect').selectOption('allow');
  await editor.getByLabel('Server (glob)').fill('Files');
  await editor.getByLabel('Tool (glob)').fill('read_*');
  await editor.getByRole('button', { name: 'Save rule' }).click();
  await expect(rules.getByRole('listitem')).toHaveCount(2);
  const second = (await policy(workbench.call)).rules[1]?.id ?? '';
  await rules.getByRole('button', { name: `Move rule ${second} up` }).click();
  await expect.poll(async () => (await policy(workbench.call)).rules.map((rule) => rule.id)[0]).toBe(second);

  // Editing: a bad glob is refused and named.
  await rules.getByRole('button', { name: `Edit rule ${second}` }).click();
  await editor.getByLabel('Tool (glob)').fill('read_[');
  await editor.getByRole('button', { name: 'Save rule' }).click();
  await expect(editor.getByLabel('Tool (glob)')).toHaveAttribute('aria-invalid', 'true');
  await editor.getByRole('button', { name: 'Cancel' }).click();

  await rules.getByRole('button', { name: `Delete rule ${second}` }).click();
  await expect(rules.getByRole('listitem')).toHaveCount(1);
});

test('chat grants are listed with their chat and can be revoked', async ({ page, workbench }) => {
  await filesReady(workbench);
  await runApprovalCycle(workbench, { title: 'Grant chat', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' });
  const dialog = await openSettings(page, workbench, 'Approvals');
  const grants = dialog.getByRole('table', { name: 'Chat grants' });
  await expect(grants.getByRole('row', { name: /Grant chat/ })).toContainText('Files · list_directory');
  await grants.getByRole('button', { name: 'Revoke list_directory in Grant chat' }).click();
  await expect(dialog.getByText('No chat has a grant.')).toBeVisible();
  expect(((await workbench.call('grants.list')) as { grants: unknown[] }).grants).toEqual([]);
});

test("a server's sampling: ask, allow or refuse, and the tokens per chat, a bad number named beside the field", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'Approvals');
  const files = dialog.getByRole('list', { name: 'Server and tool settings' }).getByRole('listitem', { name: 'Files' });
  await files.getByRole('button', { name: /^Files \d+ tools?/, expanded: false }).click();
  // Files never asked the model to write for it: its sampling settings wait behind one line until asked for.
  const sampling = files.getByRole('group', { name: 'When Files asks the model' });
  await expect(sampling).toHaveCount(0);
  await expect(files.getByTestId('sampling-unused')).toContainText(
    'Files has not asked the chat’s model to write for it; its sampling settings show here once it does.',
  );
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-sampling-unused`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await files.getByRole('button', { name: 'Set them now' }).click();
  const choice = sampling.getByRole('combobox', { name: /When Files asks the chat’s model to write for it/ });
  await expect(choice).toHaveValue('ask');
  await choice.selectOption('allow');
  await expect
    .poll(async () => (await policy(workbench.call)).servers.Files)
    .toEqual({ autoApprove: false, sampling: 'allow' });

  const budget = sampling.getByRole('spinbutton', { name: 'Most tokens the model writes for Files per chat' });
  await expect(budget).toHaveValue('10000');
  await budget.fill('-3');
  await budget.press('Enter');
  await expect(sampling.getByRole('alert')).toHaveText('A whole number of tokens from 0 to 10,000,000.');
  await expect(budget).toHaveAttribute('aria-invalid', 'true');
  await budget.fill('2500');
  await budget.press('Tab');
  await expect
    .poll(async () => (await policy(workbench.call)).servers.Files)
    .toEqual({ autoApprove: false, sampling: 'allow', samplingTokenBudget: 2500 });
  await expect(sampling.getByRole('alert')).toHaveCount(0);
  await choice.selectOption('deny');
  await expect
    .poll(async () => (await policy(workbench.call)).servers.Files)
    .toMatchObject({ sampling: 'deny', samplingTokenBudget: 2500 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-sampling-settings`);
  }
});

test('a refused edit of a server or tool setting says why where it was made, and the number typed stays', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'Approvals');
  const files = dialog.getByRole('list', { name: 'Server and tool settings' }).getByRole('listitem', { name: 'Files' });
  await files.getByRole('button', { name: /^Files \d+ tools?/, expanded: false }).click();
  await files.getByRole('button', { name: 'Set them now' }).click();
  const sampling = files.getByRole('group', { name: 'When Files asks the model' });
  const budget = sampling.getByRole('spinbutton', { name: 'Most tokens the model writes for Files per chat' });
  // The settings file is broken by hand while the app runs: every change to it is refused, with the file's words.
  await fs.writeFile(path.join(workbench.dataDir, 'settings.json'), '{ "approvals": ', 'utf8');
  await budget.fill('2500');
  await budget.press('Enter');
  await expect(sampling.getByTestId('setting-problem')).toContainText(
    /Not changed: The settings file .*settings.json is not valid JSON/,
  );
  await expect(budget).toHaveValue('2500');
  await expect(budget).toHaveAttribute('aria-invalid', 'true');
  const listing = files.getByRole('combobox', { name: 'Approval for Files list_directory', exact: true });
  await listing.selectOption('auto-approve');
  const row = files
    .getByRole('row')
    .filter({ has: page.getByRole('combobox', { name: 'Approval for Files list_directory', exact: true }) });
  await expect(row.getByTestId('setting-problem')).toContainText(
    /Not changed: The settings file .*settings.json is not valid JSON/,
  );
  await expect(listing).toHaveValue('inherit');
  // Nothing else on the page claims the change was made.
  await expect(dialog.getByRole('alert').filter({ hasText: 'Not changed' })).toHaveCount(2);
  await sampling.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-setting-refused`);
  }
});
