/**
 * MCP Apps views in the Electron window (docs/user/mcp-apps.md#how-a-view-is-shown): the flow of mcp-apps.spec.ts's
 * first test, in the real app launched through Playwright's Electron support (e2e/electron-app.ts). The window's page is
 * on the app scheme and frames the app frame origin at 127.0.0.1; the view runs inside it, receives the tool result,
 * and its links go through the host's confirmation. It needs an Electron binary: elsewhere it is skipped with the reason.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ElectronApplication, FrameLocator, Page } from '@playwright/test';
import { clockReady } from './apps-helpers';
import { chatUi, say, scriptedChat, shoot } from './chat-ui';
import { ELECTRON_PATH, launchElectron, MAIN_ENTRY, NO_ELECTRON } from './electron-app';
import { titleUnless } from '../src/main/testing/skip-reason';
import { expect, test, type Workbench } from './fixtures';

test.describe.configure({ timeout: 90_000 });

/** The contract as the window's page calls it, through the preload's `window.workbench`. */
function contractOf(page: Page): Pick<Workbench, 'call'> {
  return {
    call: (method, input) =>
      page.evaluate(
        async ({ method, input }) => {
          const [space = '', member = ''] = method.split('.');
          const api = (
            globalThis as unknown as { workbench: Record<string, Record<string, (input: unknown) => unknown>> }
          ).workbench;
          const call = api[space]?.[member];
          if (!call) throw new Error(`no contract method ${method}`);
          return call(input);
        },
        { method, input },
      ),
  };
}

/** The view's own document: the inner frame inside the proxy frame of the tool block. */
function viewOf(page: Page): FrameLocator {
  return page.getByTestId('app-view').frameLocator('iframe').frameLocator('iframe');
}

test.describe(titleUnless('MCP Apps views in the Electron window', ELECTRON_PATH === null, NO_ELECTRON), () => {
  test.skip(ELECTRON_PATH === null, NO_ELECTRON);

  let app: ElectronApplication | undefined;
  let home = '';

  test.beforeEach(async () => {
    expect(existsSync(MAIN_ENTRY), `${MAIN_ENTRY} is missing: run \`npm run build\` first.`).toBe(true);
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'aiwb-electron-views-'));
  });

  test.afterEach(async () => {
    await app?.close();
    app = undefined;
    await fs.rm(home, { recursive: true, force: true });
  });

  test('the view renders in the tool block on the app frame origin and receives the tool result', async () => {
    app = await launchElectron(home);
    const page = await app.firstWindow();
    const workbench = contractOf(page);
    // The preload gives the page the frame's address, and nothing else besides the contract.
    const host = await page.evaluate(async () => {
      const scope = globalThis as unknown as { workbenchHost: Record<string, () => Promise<unknown>> };
      return { members: Object.keys(scope.workbenchHost), url: await scope.workbenchHost.appFrameUrl?.() };
    });
    expect(host.members).toEqual(['appFrameUrl']);
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app-frame\.html$/);
    const frameOrigin = new URL(String(host.url)).origin;
    // The window's policy frames that origin alone.
    const policy = await page.evaluate(async () => (await fetch('/index.html')).headers.get('content-security-policy'));
    expect(policy).toContain(`frame-src ${frameOrigin};`);

    await clockReady(workbench);
    await workbench.call('policy.update', { tools: { Clock: { 'get-time': 'auto-approve' } } });
    const { fake } = await scriptedChat(workbench, 'Clock');
    fake.script(
      { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
      { kind: 'reply', text: ['Here is the time.'] },
    );
    await page.reload();
    await say(page, 'What time is it?');
    const chat = chatUi(page);
    await expect(chat.assistantMessages.last()).toContainText('Here is the time.');
    const frame = page.getByTestId('app-view').locator('iframe');
    await expect(frame).toBeVisible();
    expect(new URL((await frame.getAttribute('src')) ?? '').origin).toBe(frameOrigin);
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
    const view = viewOf(page);
    await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
    await expect(view.locator('#get-time-btn')).toBeVisible();
    await expect.poll(async () => (await frame.boundingBox())?.height ?? 0).toBeGreaterThan(150);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, `${scheme}-60-app-view-electron`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // ui/message lands in the message box, not sent.
    await view.locator('#send-message-btn').click();
    await expect(chat.input).toHaveValue('This is message text.');
    await expect(chat.userMessages).toHaveCount(1);
    // ui/open-link: the host's own confirmation, with the real host; cancelled, nothing opens.
    await view.locator('#open-link-btn').click();
    const dialog = page.getByRole('dialog', { name: 'Open a link on modelcontextprotocol.io?' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);

    // The proxy frame cannot take the window elsewhere, nor is it granted a permission.
    const proxy = page.frames().find((candidate) => candidate.url().startsWith(`${frameOrigin}/`));
    expect(proxy, 'the proxy frame').toBeDefined();
    const notifications = await proxy?.evaluate(() => {
      const scope = globalThis as unknown as {
        top: { location: { href: string } };
        Notification: { permission: string };
      };
      try {
        scope.top.location.href = 'https://example.com/';
      } catch {
        // Refused by the frame's sandbox already.
      }
      return scope.Notification.permission;
    });
    expect(notifications).not.toBe('granted');
    await page.waitForTimeout(500);
    expect(page.url()).toBe('app://workbench/index.html');
    await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/);
  });
});
