/**
 * A 2026-07-28 server's tool that runs only as a task (the tasks extension; docs/user/mcp-servers.md#tasks,
 * docs/dev/protocol-2026.md#tasks-on-2026-07-28), in browser mode, against the fixture server that speaks the
 * extension, run over stdio: the call waits for approval like any call, then the server refuses it because AI
 * Workbench does not offer the extension, and the block and the model are told why. Screenshots light and dark, with
 * axe, in .cache/screenshots/protocol/.
 */
import path from 'node:path';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';
import { ROOT, expect, test } from './fixtures';

const SHOTS = path.join(ROOT, '.cache', 'screenshots', 'protocol');
const TASKS_SERVER = path.join(ROOT, 'src/main/mcp/test-fixtures/modern-tasks-server.ts');

test.describe.configure({ timeout: 120_000 });

test('a task-only tool of a 2026-07-28 server: approved first, then refused by the server, and the block says why', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 900 });
  await workbench.call('mcp.add', { name: 'Reports', server: { command: process.execPath, args: [TASKS_SERVER] } });
  const tools = async () =>
    (
      (await workbench.call('mcp.tools', { name: 'Reports' })) as {
        tools: { name: string; providerName: string }[];
      }
    ).tools;
  await expect.poll(async () => (await tools()).length, { timeout: 30_000 }).toBe(2);
  const report = (await tools()).find((tool) => tool.name === 'report')?.providerName as string;

  const { fake } = await scriptedChat(workbench, 'Quarterly report');
  fake.script(
    {
      kind: 'reply',
      text: ['Building it.'],
      toolCalls: [{ id: 'call_report', name: report, argumentChunks: ['{"steps":3}'] }],
    },
    { kind: 'reply', text: ['That tool cannot run here.'] },
  );
  await page.goto(workbench.url);
  const view = chatUi(page);
  await say(page, 'build the quarterly report');
  // Decided like any call: the approval card first.
  await expect(view.card('report')).toBeVisible({ timeout: 15_000 });
  const log = async () =>
    ((await workbench.call('mcp.logs', { name: 'Reports' })) as { lines: { text: string }[] }).lines
      .map((line) => line.text)
      .join('\n');
  // Nothing was sent while the card waits.
  expect(await log()).not.toContain('received tools/call');
  await view.card('report').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.pane.getByText('That tool cannot run here.')).toBeVisible({ timeout: 30_000 });

  const block = view.toolCalls.first();
  await expect(block.getByTestId('tool-task')).toHaveCount(0);
  await block
    .getByRole('button', { name: /report/ })
    .first()
    .click();
  await expect(block).toContainText(
    '"report" on "Reports" runs only as a task of the MCP tasks extension (protocol 2026-07-28), which AI Workbench cannot run yet',
  );
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('runs only as a task of the MCP tasks extension');
  // One tools/call, without the extension; no task was created, so nothing followed it.
  await expect.poll(log).toContain('tools/call report, tasks extension not declared');
  expect((await log()).match(/received tools\/call/g)).toHaveLength(1);
  expect(await log()).not.toContain('received tasks/');
  await shootBoth(page, 'task-only-tool-2026', SHOTS);
  await fake.close();
});
