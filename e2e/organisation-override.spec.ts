/**
 * A setting the organisation overrides says so where it was set (docs/user/organisation-policy.md): a chat set to
 * "Never ask" under a policy that requires approvals still asks, and the chat says why and by what.
 */
import { useManagedPolicy } from './managed-policy';
import { expect, test } from './fixtures';
import { filesReady, shoot } from './settings-helpers';

const policyFile = useManagedPolicy({ disallowNeverAsk: true });

test("a chat set to 'Never ask' under a policy that requires approvals says it asks anyway, and why", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const chat = (await workbench.call('chat.create', { title: 'Overridden' })) as { id: string };
  await page.goto(workbench.url);
  await expect(page.getByTestId('organisation-override')).toHaveCount(0);
  await page.getByLabel('Approval mode').selectOption('never-ask');
  const note = page.getByTestId('organisation-override');
  await expect(note).toContainText(
    "This chat is set to 'Never ask', but your organisation's policy requires approvals",
  );
  await expect(note).toContainText(policyFile());
  await expect(page.getByTestId('approvals-off-banner')).toHaveCount(0);
  // And it does ask.
  await workbench.call('chat.send', { chatId: chat.id, message: { role: 'user', text: 'list files' } });
  await expect
    .poll(
      async () =>
        ((await workbench.call('approvals.pending', { chatId: chat.id })) as { approvals: unknown[] }).approvals.length,
    )
    .toBe(1);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `organisation-override-${scheme}`);
  }
});
