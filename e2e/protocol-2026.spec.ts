/**
 * A 2026-07-28 server and a 2025-11-25 server side by side in one chat, in browser mode (docs/dev/protocol-2026.md,
 * docs/user/mcp-servers.md#protocol-revisions): both run in the test process (the SDK v2's server packages and the
 * 1.x SDK); the model calls a tool of each in one turn, both wait for approval on their cards, then the 2026-07-28
 * server asks the person through input_required and the form waits like a 2025 server's. Each server's page in
 * Settings names the revision it speaks. Screenshots light and dark, with axe, in .cache/screenshots/protocol/.
 */
import path from 'node:path';
import { startStreamableHttpServer, type TestHttpServer } from '../src/main/mcp/test-fixtures/http-servers';
import { startModernServer, type ModernFixture } from '../src/main/mcp/test-fixtures/modern-server';
import type { FakeLlmServer } from '../src/main/llm/testing/fake-llm-server';
import { chatUi, say, scriptedChat, shootBoth } from './chat-ui';
import { ROOT, expect, test, type Workbench } from './fixtures';
import { openSettings } from './settings-helpers';

const SHOTS = path.join(ROOT, '.cache', 'screenshots', 'protocol');

let modern: ModernFixture | undefined;
let legacy: TestHttpServer | undefined;
let fake: FakeLlmServer | undefined;
test.afterEach(async () => {
  await fake?.close();
  await modern?.close();
  await legacy?.close();
  fake = modern = legacy = undefined;
});

test.describe.configure({ timeout: 180_000 });

async function providerName(workbench: Workbench, server: string, tool: string): Promise<string> {
  const { tools } = (await workbench.call('mcp.tools', { name: server })) as {
    tools: { name: string; providerName: string }[];
  };
  return tools.find((item) => item.name === tool)?.providerName as string;
}

test('one chat, a 2026-07-28 server and a 2025-11-25 server: both under approval, the revision on each page', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1000 });
  modern = await startModernServer();
  legacy = await startStreamableHttpServer();
  const chat = await scriptedChat(workbench, 'Two revisions');
  fake = chat.fake;
  await workbench.call('mcp.add', { name: 'Modern', server: { url: modern.url, type: 'http' } });
  await workbench.call('mcp.add', { name: 'Legacy', server: { url: legacy.url, type: 'http' } });
  for (const name of ['Modern', 'Legacy'])
    await expect
      .poll(async () => ((await workbench.call('mcp.tools', { name })) as { tools: unknown[] }).tools.length, {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);

  fake.script(
    {
      kind: 'reply',
      toolCalls: [
        {
          id: 'call_modern',
          name: await providerName(workbench, 'Modern', 'echo'),
          argumentChunks: ['{"text":"from 2026"}'],
        },
        {
          id: 'call_legacy',
          name: await providerName(workbench, 'Legacy', 'shout'),
          argumentChunks: ['{"text":"from 2025"}'],
        },
      ],
    },
    { kind: 'reply', text: ['Both servers answered.'] },
    {
      kind: 'reply',
      toolCalls: [
        { id: 'call_confirm', name: await providerName(workbench, 'Modern', 'confirm'), argumentChunks: ['{}'] },
      ],
    },
    { kind: 'reply', text: ['You confirmed.'] },
  );

  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Two revisions');
  const view = chatUi(page);
  await say(page, 'ask both servers');
  await expect(view.card('echo')).toBeVisible({ timeout: 15_000 });
  await expect(view.card('shout')).toBeVisible();
  // Nothing ran before the person allowed it: the 2026-07-28 server saw no tools/call yet.
  expect(modern.methods).not.toContain('tools/call');
  await shootBoth(page, 'two-revisions-approvals', SHOTS);
  await view.card('echo').getByRole('button', { name: 'Allow once', exact: true }).click();
  await view.card('shout').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.pane.getByText('Both servers answered.')).toBeVisible({ timeout: 15_000 });
  expect(modern.methods.filter((method) => method === 'tools/call')).toHaveLength(1);

  // The 2026-07-28 server asks the person (input_required): the same form card as a 2025 server's request.
  await say(page, 'confirm with me');
  await expect(view.card('confirm')).toBeVisible({ timeout: 15_000 });
  await view.card('confirm').getByRole('button', { name: 'Allow once', exact: true }).click();
  const form = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  await expect(form.getByRole('heading')).toHaveText('Modern asks for information', { timeout: 15_000 });
  // The SDK's own rounds are not the server's progress.
  await expect(view.pane).not.toContainText('Fulfilling input required');
  await shootBoth(page, 'two-revisions-elicitation', SHOTS);
  await form.getByLabel('confirm', { exact: false }).check();
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(view.pane.getByText('You confirmed.')).toBeVisible({ timeout: 15_000 });
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('accept: {\\"confirm\\":true}');

  const dialog = await openSettings(page, workbench, 'MCP servers');
  for (const [name, revision] of [
    ['Modern', '2026-07-28'],
    ['Legacy', '2025-11-25'],
  ] as const) {
    await dialog
      .getByRole('list', { name: 'Servers' })
      .getByRole('button', { name: new RegExp(name) })
      .click();
    const detail = dialog.getByRole('region', { name: `Server ${name}` });
    await expect(detail.getByTestId('server-protocol')).toHaveText(`MCP ${revision}`);
    await shootBoth(page, `server-page-${name.toLowerCase()}`, SHOTS);
  }
});
