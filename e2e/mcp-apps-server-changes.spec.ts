/**
 * A view when its server changes under it (docs/user/mcp-apps.md): a view whose server's name comes to mean another
 * server is closed with a note and its call is refused ("a view belongs to its server"); a view whose server is not
 * ready yet says so and is shown once the server is ready ("reading a view"). Against the published example app server
 * @modelcontextprotocol/server-basic-vanillajs, run for real over stdio.
 */
import path from 'node:path';
import type { FrameLocator, Page } from '@playwright/test';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';
import { clockReady } from './apps-helpers';
import { ROOT, expect, test, type Workbench } from './fixtures';

test.describe.configure({ timeout: 120_000 });

const VERSIONED = path.join(ROOT, 'src/main/mcp/test-fixtures/versioned-app-server.ts');

function viewOf(page: Page): FrameLocator {
  return page.getByTestId('app-view').frameLocator('iframe').frameLocator('iframe');
}

/** The Clock's view shown in a chat: the model calls get-time (auto-approved) and the view shows the time. */
async function clockViewShown(page: Page, workbench: Workbench): Promise<FrameLocator> {
  await clockReady(workbench);
  await workbench.call('policy.update', { tools: { Clock: { 'get-time': 'auto-approve' } } });
  const { fake } = await scriptedChat(workbench, 'Clock');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Here is the time.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'What time is it?');
  await expect(chatUi(page).assistantMessages.last()).toContainText('Here is the time.');
  const view = viewOf(page);
  await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  return view;
}

interface Row {
  toolCallId: string;
  decision: string | null;
  actor: string | null;
  decidedBy: string | null;
}
const rowsOf = async (workbench: Workbench, toolName: string): Promise<Row[]> =>
  ((await workbench.call('audit.query', { toolName })) as { entries: Row[] }).entries;

test('a view whose server was swapped under its name is closed with a note, and its call is refused', async ({
  page,
  workbench,
}) => {
  const view = await clockViewShown(page, workbench);
  const ranBefore = (await rowsOf(workbench, 'get-time')).filter((row) => row.toolCallId.startsWith('app:'));
  expect(ranBefore).toEqual([]);

  // Another server under the name: the versioned fixture is added as "Clock" (what it runs is not what Clock ran).
  await workbench.call('mcp.remove', { name: 'Clock' });
  await workbench.call('mcp.add', { name: 'Clock', server: { command: process.execPath, args: [VERSIONED] } });
  await expect
    .poll(async () => ((await workbench.call('mcp.tools', { name: 'Clock' })) as { tools: unknown[] }).tools.length, {
      timeout: 30_000,
    })
    .toBe(1);

  // The view still on screen asks for get-time: refused as stale before anything decides it, and the view closes.
  await view.locator('#get-time-btn').click();
  const note = page.getByTestId('app-view-stale');
  await expect(note).toBeVisible({ timeout: 20_000 });
  await expect(note).toHaveText(
    'This view was shown for the server that “Clock” ran then. That name now means another server, or none, so the view is closed and may not ask anything. Ask again for a view of the server it runs now.',
  );
  await expect(page.getByTestId('app-view')).toHaveCount(0);
  await expect(page.locator('[data-testid="server-request-card"][data-kind="app-tool-call"]')).toHaveCount(0);
  const rows = (await rowsOf(workbench, 'get-time')).filter((row) => row.toolCallId.startsWith('app:'));
  expect(rows).toEqual([
    expect.objectContaining({
      decision: 'auto_deny',
      actor: 'system',
      decidedBy: expect.stringMatching(
        /^stale view: "Clock" now runs another server than the one it was shown for, so the view may not ask anything \(requested by the app of Clock/,
      ),
    }),
  ]);
  await note.scrollIntoViewIfNeeded();
  await shootBoth(page, 'app-view-stale');
});

test('a view whose server is not ready says so, and is shown once the server is ready', async ({ page, workbench }) => {
  await clockViewShown(page, workbench);
  // The server stops; the chat is opened again, so its view is read while the server is not there.
  await workbench.call('mcp.setEnabled', { name: 'Clock', enabled: false });
  await page.reload();
  const waiting = page.getByRole('note').filter({ hasText: 'The view is shown once it is ready.' });
  await expect(waiting).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('app-view')).toHaveCount(0);
  await waiting.scrollIntoViewIfNeeded();
  await shootBoth(page, 'app-view-waiting-for-server');

  // Started again: the view is read again and shown, with the tool's result, without a reload.
  await workbench.call('mcp.setEnabled', { name: 'Clock', enabled: true });
  await expect(viewOf(page).locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 30_000 });
  await expect(waiting).toHaveCount(0);
});
