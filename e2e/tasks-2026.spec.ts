/**
 * A 2026-07-28 server's tool that runs only as a task (the tasks extension; docs/user/mcp-servers.md#tasks,
 * docs/dev/protocol-2026.md#tasks-on-2026-07-28), in browser mode, against the fixture server that speaks the
 * extension, run over stdio: the call waits for approval like any call; it declares the extension from the first
 * `tools/call`, and it runs as a task the block follows — its status, Cancel, what it asks on the card, its
 * result; and a deny rule added while the task runs. Screenshots light and dark, with axe, in
 * .cache/screenshots/protocol/.
 */
import path from 'node:path';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';
import { ROOT, expect, test } from './fixtures';

const SHOTS = path.join(ROOT, '.cache', 'screenshots', 'protocol');
const TASKS_SERVER = path.join(ROOT, 'src/main/mcp/test-fixtures/modern-tasks-server.ts');

test.describe.configure({ timeout: 120_000 });

async function addReports(workbench: { call(method: string, params: unknown): Promise<unknown> }): Promise<string> {
  await workbench.call('mcp.add', { name: 'Reports', server: { command: process.execPath, args: [TASKS_SERVER] } });
  const tools = async () =>
    (
      (await workbench.call('mcp.tools', { name: 'Reports' })) as {
        tools: { name: string; providerName: string }[];
      }
    ).tools;
  await expect.poll(async () => (await tools()).length, { timeout: 30_000 }).toBe(4);
  return (await tools()).find((tool) => tool.name === 'ask')?.providerName as string;
}

/** The audit log's rows of kind `task` of one tool (oldest first): what happened, and the task's status then. */
async function taskRows(
  workbench: { call(method: string, params: unknown): Promise<unknown> },
  toolName: string,
): Promise<{ decidedBy: string; status: unknown }[]> {
  const page = (await workbench.call('audit.query', { kind: 'task', toolName })) as {
    entries: { sequence: number; decidedBy: string; args: { status?: unknown } }[];
  };
  return [...page.entries]
    .sort((a, b) => a.sequence - b.sequence)
    .map((entry) => ({ decidedBy: entry.decidedBy, status: entry.args.status }));
}

const logOf = (workbench: { call(method: string, params: unknown): Promise<unknown> }) => async () =>
  ((await workbench.call('mcp.logs', { name: 'Reports' })) as { lines: { text: string }[] }).lines
    .map((line) => line.text)
    .join('\n');

test('a task of a 2026-07-28 server: approved first, it goes on with its status and Cancel, asks on the card, and its result arrives in the block', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1100 });
  const ask = await addReports(workbench);
  const { fake } = await scriptedChat(workbench, 'Publishing');
  fake.script(
    {
      kind: 'reply',
      text: ['Asking you first.'],
      toolCalls: [{ id: 'call_ask', name: ask, argumentChunks: ['{"question":"Publish the quarterly report?"}'] }],
    },
    { kind: 'reply', text: ['You said yes.'] },
  );
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'publish the quarterly report');
  // Decided like any call: the approval card first, and nothing is sent while it waits.
  await expect(view.card('ask')).toBeVisible({ timeout: 15_000 });
  const log = logOf(workbench);
  expect(await log()).not.toContain('received tools/call');
  await view.card('ask').getByRole('button', { name: 'Allow once', exact: true }).click();

  const block = view.toolCalls.first();
  const task = block.getByTestId('tool-task');
  // The call declared the extension, and the server made it a task that waits for the person: it goes on, its status
  // message shown, with Cancel.
  await expect(task).toContainText('Waiting for your answer: Asked:', { timeout: 30_000 });
  await expect(task.getByRole('button', { name: 'Cancel the task of Reports · ask' })).toBeEnabled();
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  await expect(card).toBeVisible();
  await expect(card).toContainText('Publish the quarterly report?');
  await shootBoth(page, 'task-running-2026', SHOTS);

  await card.getByLabel(/answer/i).fill('yes, publish it');
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(view.pane.getByText('You said yes.')).toBeVisible({ timeout: 30_000 });
  await expect(block).toContainText('Done');
  await expect(task).toHaveCount(0);
  await block.getByRole('button', { name: /ask/ }).first().click();
  await expect(block).toContainText('the person said accept: yes, publish it');
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('the person said accept: yes, publish it');
  await expect.poll(log).toContain('received tasks/update');
  const seen = await log();
  // One call, declaring the extension from the first: the server made it a task.
  expect(seen.match(/tools\/call ask, tasks extension declared/g)).toHaveLength(1);
  expect(seen).not.toContain('tools/call ask, tasks extension not declared');
  // The task's rows, as on 2025-11-25: started, ended completed.
  const rows = await taskRows(workbench, 'ask');
  expect(rows.map((row) => row.status)).toEqual(['working', 'completed']);
  await shootBoth(page, 'task-finished-2026', SHOTS);
  await fake.close();
});

test('Cancel on a running 2026-07-28 task sends tasks/cancel; the block says cancelled', async ({
  page,
  workbench,
}) => {
  const ask = await addReports(workbench);
  const { fake } = await scriptedChat(workbench, 'Cancel publishing');
  fake.script(
    {
      kind: 'reply',
      text: ['Asking you first.'],
      toolCalls: [{ id: 'call_ask', name: ask, argumentChunks: ['{"question":"Publish it?"}'] }],
    },
    { kind: 'reply', text: ['Understood.'] },
  );
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'publish it');
  await view.card('ask').getByRole('button', { name: 'Allow once', exact: true }).click();
  const block = view.toolCalls.first();
  // It waits for the person's answer, so it is still running when Cancel is clicked, however slow the host.
  await expect(block.getByTestId('tool-task')).toContainText('Waiting for your answer: Asked:', { timeout: 30_000 });
  await block.getByRole('button', { name: /^Cancel the task of/ }).click();
  await expect(block).toContainText('Cancelled', { timeout: 15_000 });
  await expect(view.pane.getByText('Understood.')).toBeVisible();
  await expect.poll(logOf(workbench)).toContain('received tasks/cancel');
  await fake.close();
});

test('a deny rule added while a 2026-07-28 task runs stops it: the block reads denied, naming the rule, and the model gets no result', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 900 });
  await addReports(workbench);
  const report = (
    (await workbench.call('mcp.tools', { name: 'Reports' })) as { tools: { name: string; providerName: string }[] }
  ).tools.find((tool) => tool.name === 'report')?.providerName as string;
  await workbench.call('policy.update', { tools: { Reports: { report: 'auto-approve' } } });
  const { fake } = await scriptedChat(workbench, 'Long report');
  fake.script(
    {
      kind: 'reply',
      text: ['Building it.'],
      // Long enough to be running when the rule comes, however slow the host: it stops at the rule, not at its end.
      toolCalls: [{ id: 'call_report', name: report, argumentChunks: ['{"steps":2000,"stepMs":100}'] }],
    },
    { kind: 'reply', text: ['The rule stopped it.'] },
  );
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'build the long report');
  const block = view.toolCalls.first();
  await expect(block.getByTestId('tool-task')).toContainText('Step', { timeout: 30_000 });
  await workbench.call('policy.update', {
    rules: { add: [{ id: 'no-reports', server: 'Reports', tool: 'report', effect: 'deny' }] },
  });
  await expect(block).toContainText('Denied', { timeout: 15_000 });
  await expect(view.pane.getByText('The rule stopped it.')).toBeVisible();
  await expect(block.getByTestId('tool-task')).toHaveCount(0);
  expect(JSON.stringify(fake.generations().at(-1)?.body)).not.toContain('report ready');
  await expect.poll(logOf(workbench)).toContain('received tasks/cancel');
  // The door's auto_deny row names the rule; the task's last row says it ended cancelled.
  const denied = (await workbench.call('audit.query', { kind: 'decision', toolName: 'report' })) as {
    entries: { decision: string }[];
  };
  const autoDeny = denied.entries.filter((entry) => entry.decision === 'auto_deny');
  expect(autoDeny).toHaveLength(1);
  expect(JSON.stringify(autoDeny[0])).toContain('rule #1');
  expect((await taskRows(workbench, 'report')).at(-1)?.status).toBe('cancelled');
  await shootBoth(page, 'task-denied-2026', SHOTS);
  await fake.close();
});
