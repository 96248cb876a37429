/**
 * A tool call made as an MCP task (docs/user/mcp-servers.md#tasks) in the UI, against the real server-everything's
 * `simulate-research-query`: the block shows the task going on with its status message and Cancel; the input it asks
 * for comes as the elicitation card; its result arrives in the block. Screenshots go to .cache/screenshots/.
 */
import path from 'node:path';
import { ROOT, expect, test, type Workbench } from './fixtures';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';

test.describe.configure({ timeout: 120_000 });

const SHOTS = path.join(ROOT, '.cache', 'screenshots');

async function addEverything(workbench: Workbench): Promise<void> {
  await workbench.call('mcp.add', {
    name: 'everything',
    server: { package: '@modelcontextprotocol/server-everything' },
  });
  await workbench.call('policy.update', { servers: { everything: { autoApprove: true } } });
  await expect
    .poll(
      async () => ((await workbench.call('mcp.tools', { name: 'everything' })) as { tools: unknown[] }).tools.length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
}

const research = (args: Record<string, unknown>) => ({
  kind: 'reply' as const,
  text: ['Researching.'],
  toolCalls: [
    { id: 'call_research', name: 'everything__simulate-research-query', argumentChunks: [JSON.stringify(args)] },
  ],
});

test('a task shows its status while it goes on, asks on the elicitation card, and its result arrives in the block', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1100 });
  await addEverything(workbench);
  const { fake } = await scriptedChat(workbench, 'Research');
  fake.script(research({ topic: 'tides', ambiguous: true }), { kind: 'reply', text: ['The report is in.'] });
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'research tides');
  const block = view.toolCalls.first();
  const task = block.getByTestId('tool-task');
  // The task waits for the person's answer: it goes on, with its status message and Cancel.
  await expect(task).toContainText('Task · Waiting for your answer: Found multiple interpretations', {
    timeout: 30_000,
  });
  await expect(
    task.getByRole('button', { name: 'Cancel the task of everything · simulate-research-query' }),
  ).toBeEnabled();
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  await expect(card).toBeVisible();
  await shootBoth(page, 'task-running', SHOTS);

  await card.getByLabel(/Clarification/).selectOption({ label: 'Historical perspective' });
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(view.pane.getByText('The report is in.')).toBeVisible({ timeout: 30_000 });
  await expect(block).toContainText('Done');
  await expect(task).toHaveCount(0);
  await block
    .getByRole('button', { name: /simulate-research-query/ })
    .first()
    .click();
  await expect(block).toContainText('Research Report: tides (historical)');
  await shootBoth(page, 'task-finished', SHOTS);
  await fake.close();
});

test('Cancel on a running task asks the server to stop it; the block says cancelled', async ({ page, workbench }) => {
  await addEverything(workbench);
  const { fake } = await scriptedChat(workbench, 'Cancel research');
  // An ambiguous topic: the task stops to ask, so it is still running when Cancel is clicked, however slow the host.
  fake.script(research({ topic: 'tides', ambiguous: true }), { kind: 'reply', text: ['Understood.'] });
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'research tides');
  const block = view.toolCalls.first();
  await expect(block.getByTestId('tool-task')).toContainText('Waiting for your answer', { timeout: 30_000 });
  const cancel = block.getByRole('button', { name: /^Cancel the task of/ });
  await cancel.click();
  await expect(block).toContainText('Cancelled', { timeout: 15_000 });
  await expect(view.pane.getByText('Understood.')).toBeVisible();
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('cancelled this task');
  await fake.close();
});

test('a reload while the task runs shows its latest status, not the first, and Cancel still reaches it', async ({
  page,
  workbench,
}) => {
  await addEverything(workbench);
  const { fake } = await scriptedChat(workbench, 'Reload research');
  fake.script(research({ topic: 'tides', ambiguous: true }), { kind: 'reply', text: ['Understood.'] });
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'research tides');
  const task = view.toolCalls.first().getByTestId('tool-task');
  // The task began working, went through its first stage, and now waits for an answer: a status that stays.
  const latest = 'Task · Waiting for your answer: Found multiple interpretations';
  await expect(task).toContainText(latest, { timeout: 30_000 });

  await page.reload();
  const again = chatUi(page);
  const block = again.toolCalls.first();
  // What the window reads after a reload is the stored call: its task's latest status and status message.
  await expect(block.getByTestId('tool-task')).toContainText(latest, { timeout: 15_000 });
  await expect(block.getByTestId('tool-task')).not.toContainText('Working');
  await block.getByRole('button', { name: /^Cancel the task of/ }).click();
  await expect(block).toContainText('Cancelled', { timeout: 15_000 });
  await fake.close();
});
