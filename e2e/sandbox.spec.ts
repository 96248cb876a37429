/**
 * A contained server in browser mode, with the real bubblewrap (docs/user/sandbox.md): a hostile server's blocks show
 * on its tool block in the chat; "Allow…" makes a widening request that grants nothing until it is allowed on its card;
 * the server's Sandbox page shows what it may touch, the grant, its recent blocks, and takes the grant back — each
 * step an audit row. Screens in light and dark, checked with axe.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chatUi, shootBoth } from './chat-ui';
import { expect, test, type Workbench } from './fixtures';
import { openSettings } from './settings-helpers';
import { HOSTILE_SERVER } from '../src/main/mcp/test-fixtures/harness';

test.describe.configure({ timeout: 180_000 });

interface AuditPage {
  entries: { kind: string; toolName: string; decision: string | null; decidedBy: string | null }[];
}

const audit = async (workbench: Workbench): Promise<AuditPage['entries']> =>
  ((await workbench.call('audit.query', { serverName: 'Hostile' })) as AuditPage).entries;

let outside = '';
let listener: net.Server | undefined;
let port = 0;
test.beforeAll(async () => {
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-e2e-outside-'));
  fs.writeFileSync(path.join(outside, 'notes.txt'), 'KEY');
  listener = net.createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => listener?.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
test.afterAll(() => {
  listener?.close();
  fs.rmSync(outside, { recursive: true, force: true });
});

test('a block on the tool block is widened from the chat, shown on the server’s Sandbox page and revoked there', async ({
  page,
  workbench,
}) => {
  const notes = path.join(outside, 'notes.txt');
  const targets = { read: notes, write: path.join(outside, 'w'), env: 'AIWB_E2E_NOT_GIVEN', port };
  await workbench.call('mcp.add', {
    name: 'Hostile',
    server: { command: process.execPath, args: [HOSTILE_SERVER, JSON.stringify(targets)] },
  });
  await workbench.call('policy.update', { tools: { Hostile: { escape: 'auto-approve' } } });
  await expect
    .poll(
      async () =>
        (
          (await workbench.call('mcp.list')) as {
            servers: { name: string; status: { state: string; containment?: string } }[];
          }
        ).servers.find((server) => server.name === 'Hostile')?.status,
      { timeout: 30_000 },
    )
    .toMatchObject({ state: 'ready', containment: 'contained' });

  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await view.input.fill('/tool Hostile__escape {}');
  await view.input.press('Enter');
  const block = view.toolCalls.first();
  await expect(block).toContainText('Done', { timeout: 30_000 });
  const blocks = block.getByRole('list', { name: 'What the sandbox blocked during escape' });
  const readBlock = blocks.getByTestId('sandbox-block').filter({ hasText: `Hostile tried to read ${notes} — blocked` });
  await expect(readBlock).toBeVisible();
  await expect(blocks).toContainText(`Hostile tried to connect to 127.0.0.1:${port} — blocked`);
  await shootBoth(page, 'sandbox-10-blocks-on-tool-block');

  // "Allow…" asks: a waiting request, in the one pending store, that grants nothing yet.
  await readBlock.getByRole('button', { name: 'Allow reading this path…' }).click();
  const card = readBlock.getByTestId('sandbox-widening');
  await expect(card).toContainText(`Hostile may read ${notes} (and everything in it)`);
  const waiting = (await workbench.call('serverRequests.list', {})) as {
    requests: { kind: string; serverName: string }[];
  };
  expect(
    waiting.requests.filter((request) => request.kind === 'sandbox-widening').map((request) => request.serverName),
  ).toEqual(['Hostile']);
  expect(
    ((await workbench.call('mcp.sandbox', { name: 'Hostile' })) as { granted: { read: string[] } }).granted.read,
  ).toEqual([]);
  await shootBoth(page, 'sandbox-11-widening-card');
  // A reload loses nothing: the request still waits, and its card is on the block again.
  await page.reload();
  await expect(card).toContainText(`Hostile may read ${notes} (and everything in it)`);
  await card.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(readBlock.getByTestId('sandbox-widening-done')).toHaveText(
    `Allowed: Hostile may read ${notes} (and everything in it). The server restarts with its new profile.`,
  );
  await expect
    .poll(async () => (await audit(workbench)).map((entry) => `${entry.kind} ${entry.decision} ${entry.toolName}`))
    .toEqual(expect.arrayContaining(['decision allow_once sandbox/widen-read']));
  expect(
    (await audit(workbench)).some(
      (entry) => entry.decidedBy === `Sandbox: Hostile may read ${notes} (and everything in it)`,
    ),
  ).toBe(true);

  // The server's Sandbox page: what it may touch, the grant, the blocks; Revoke takes the grant back.
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog
    .getByRole('list', { name: 'Servers' })
    .getByRole('button', { name: /Hostile/ })
    .click();
  const detail = dialog.getByRole('region', { name: 'Server Hostile' });
  await expect(detail.getByTestId('server-containment')).toHaveText('Contained', { timeout: 30_000 });
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  const sandbox = detail.getByTestId('server-sandbox');
  const profile = sandbox.getByRole('definition').filter({ hasText: notes });
  await expect(profile).toContainText('granted');
  await expect(sandbox.getByRole('region', { name: 'Recent blocks' })).toContainText(
    `Hostile tried to connect to 127.0.0.1:${port} — blocked`,
  );
  await detail.getByRole('tab', { name: 'Sandbox' }).evaluate((tab) => tab.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sandbox-20-settings-sandbox');
  await sandbox.getByRole('region', { name: 'Recent blocks' }).scrollIntoViewIfNeeded();
  await shootBoth(page, 'sandbox-21-settings-blocks');

  await sandbox.getByRole('button', { name: `Revoke: May read ${notes}` }).click();
  await expect(sandbox.getByRole('region', { name: 'Granted beyond its shipped profile' })).toHaveCount(0);
  await expect
    .poll(async () =>
      (await audit(workbench)).some((entry) => entry.decidedBy === `Sandbox: Hostile may no longer read ${notes}`),
    )
    .toBe(true);

  // Widening from the page's own form asks too; denied, it grants nothing and says so.
  await sandbox.getByLabel('What to allow').selectOption('connect');
  await sandbox.getByLabel('Path, host:port or variable').fill(`127.0.0.1:${port}`);
  await sandbox.getByRole('button', { name: 'Allow…' }).click();
  const formCard = sandbox.getByTestId('sandbox-widening');
  await expect(formCard).toContainText(`Hostile may connect to 127.0.0.1:${port} (that host and port only)`);
  await formCard.getByRole('button', { name: 'Deny' }).click();
  await expect(sandbox.getByTestId('sandbox-widening-done')).toContainText('Denied');
  expect(
    ((await workbench.call('mcp.sandbox', { name: 'Hostile' })) as { granted: { hosts: string[] } }).granted.hosts,
  ).toEqual([]);
});
