/**
 * The parts of MCP beyond tools (docs/user/mcp-servers.md) in the UI, against the real server-everything: progress on a
 * tool block, a server's log with its level, roots, resources, prompts. Screenshots go to .cache/screenshots/.
 */
import path from 'node:path';
import { ROOT, expect, test, type Workbench } from './fixtures';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';
import { openSettings } from './settings-helpers';

// server-everything starts beside the Files server; on a loaded machine that takes a while.
test.describe.configure({ timeout: 120_000 });

const SHOTS = path.join(ROOT, '.cache', 'screenshots');

/** Adds server-everything and waits until its tools are listed. */
async function addEverything(workbench: Workbench, autoApprove = true): Promise<void> {
  await workbench.call('mcp.add', {
    name: 'everything',
    server: { package: '@modelcontextprotocol/server-everything' },
  });
  if (autoApprove) await workbench.call('policy.update', { servers: { everything: { autoApprove: true } } });
  await expect
    .poll(
      async () => ((await workbench.call('mcp.tools', { name: 'everything' })) as { tools: unknown[] }).tools.length,
      { timeout: 20_000 },
    )
    .toBeGreaterThan(0);
}

test('a long tool call shows the server’s progress as a bar on its block; Stop cancels it', async ({
  page,
  workbench,
}) => {
  await addEverything(workbench);
  const { fake } = await scriptedChat(workbench, 'Progress');
  fake.script(
    {
      kind: 'reply',
      text: ['Starting the long operation.'],
      toolCalls: [
        {
          id: 'call_long',
          name: 'everything__trigger-long-running-operation',
          argumentChunks: [JSON.stringify({ duration: 40, steps: 20 })],
        },
      ],
    },
    { kind: 'reply', text: ['never sent'] },
  );
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Progress');
  const view = chatUi(page);
  await say(page, 'run the long operation');
  const bar = view.toolCalls.first().getByRole('progressbar');
  await expect(bar).toBeVisible({ timeout: 15_000 });
  await expect(bar).toHaveAttribute('aria-valuemax', '20');
  await expect
    .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 15_000 })
    .toBeGreaterThanOrEqual(2);
  await expect(view.toolCalls.first().getByTestId('tool-progress')).toContainText('%');
  await shootBoth(page, 'tool-progress', SHOTS);

  await view.stop.click();
  await expect(view.toolCalls.first()).toContainText('Cancelled');
  await expect(view.toolCalls.first().getByRole('progressbar')).toHaveCount(0);
  await expect(view.input).toBeEnabled();
});

test('a server’s log shows its MCP log messages with levels; the level is set from the Logs tab; roots show and are edited', async ({
  page,
  workbench,
}) => {
  const rootA = path.join(workbench.dataDir, 'project-a');
  await workbench.call('mcp.add', {
    name: 'everything',
    server: { package: '@modelcontextprotocol/server-everything', roots: [rootA] },
  });
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog
    .getByRole('list', { name: 'Servers' })
    .getByRole('button', { name: /everything/ })
    .click();
  const detail = dialog.getByRole('region', { name: 'Server everything' });
  await expect(detail.getByTestId('server-status')).toHaveText('Running', { timeout: 30_000 });
  await expect(detail.getByTestId('server-roots')).toHaveText(rootA);

  await detail.getByRole('tab', { name: 'Logs' }).click();
  const log = detail.getByLabel('Log of everything');
  // server-everything asks for its roots after initialize and logs what it got, at level info.
  await expect(
    log.locator('[data-level="info"]').filter({ hasText: 'Roots updated: 1 root(s) received from client' }),
  ).toBeVisible({ timeout: 15_000 });
  await expect(log).toContainText('Asked the server to log at level info and above.');
  const picker = detail.getByRole('combobox', { name: 'Server log level' });
  await expect(picker).toHaveValue('info');
  await shootBoth(page, 'server-logs-levels', SHOTS);

  await picker.selectOption('warning');
  await expect(log).toContainText('Asked the server to log at level warning and above.', { timeout: 10_000 });
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.list')) as { servers: { name: string; logLevel: string }[] }).servers.find(
          (server) => server.name === 'everything',
        )?.logLevel,
    )
    .toBe('warning');

  // Roots edited in the server's form: told to the running server (it fetches them again), no restart.
  const rootB = path.join(workbench.dataDir, 'project-b');
  await detail.getByRole('button', { name: 'Edit' }).click();
  const form = page.getByTestId('server-form');
  await form.getByLabel('Roots').fill(`${rootA}\n${rootB}`);
  await form.getByRole('button', { name: /Save/ }).click();
  await expect(form).toBeHidden();
  await expect(detail.getByTestId('server-roots')).toHaveText(`${rootA}  ${rootB}`);
  const roots = (await workbench.call('mcp.list')) as { servers: { name: string; roots: string[] }[] };
  expect(roots.servers.find((server) => server.name === 'everything')?.roots).toEqual([rootA, rootB]);
});
