/**
 * The real Electron app through Playwright's Electron support (e2e/electron-app.ts): it runs only where an Electron
 * binary exists, and is reported as skipped with the reason elsewhere.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ElectronApplication } from '@playwright/test';
import { eventNames, methodNames } from '../src/shared/contract';
import { ELECTRON_PATH, launchElectron, MAIN_ENTRY, NO_ELECTRON } from './electron-app';
import { expect, test } from './fixtures';
import { ui } from './ui';

test.describe('the Electron app', () => {
  test.skip(ELECTRON_PATH === null, NO_ELECTRON);

  let app: ElectronApplication | undefined;
  let home = '';

  test.beforeEach(async () => {
    expect(existsSync(MAIN_ENTRY), `${MAIN_ENTRY} is missing: run \`npm run build\` first.`).toBe(true);
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'aiwb-electron-'));
  });

  test.afterEach(async () => {
    await app?.close();
    app = undefined;
    await fs.rm(home, { recursive: true, force: true });
  });

  const launch = (): Promise<ElectronApplication> => launchElectron(home);

  test('serves its window from the app scheme, with Node out of reach of the page', async () => {
    app = await launch();
    const page = await app.firstWindow();
    // The options themselves (contextIsolation, sandbox, nodeIntegration) are unit-tested in window-options.test.ts;
    // here we check their effect in the running app.
    const url = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.webContents.getURL());
    expect(url).toBe('app://workbench/index.html');
    const reachable = await page.evaluate(() => {
      const scope = globalThis as unknown as Record<string, unknown>;
      return ['require', 'process', 'module', 'Buffer', 'ipcRenderer'].filter(
        (name) => typeof scope[name] !== 'undefined',
      );
    });
    expect(reachable).toEqual([]);
  });

  test('exposes exactly the contract on window.workbench', async () => {
    app = await launch();
    const page = await app.firstWindow();
    const exposed = await page.evaluate(() => {
      const api = (globalThis as unknown as { workbench: Record<string, Record<string, unknown>> }).workbench;
      return Object.entries(api).flatMap(([space, members]) =>
        Object.keys(members).map((member) => `${space}.${member}:${typeof members[member]}`),
      );
    });
    const expected = [...methodNames, ...eventNames].map((name) => `${name}:function`);
    expect(exposed.sort()).toEqual(expected.sort());
  });

  test('enforces the CSP and refuses to navigate to another origin', async () => {
    app = await launch();
    const page = await app.firstWindow();
    const evalBlocked = await page.evaluate(() => {
      try {
        return (0, eval)('1 + 1') !== 2;
      } catch {
        return true;
      }
    });
    expect(evalBlocked).toBe(true);
    await page.evaluate(() => {
      (globalThis as unknown as { location: { href: string } }).location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe('app://workbench/index.html');
  });

  test('exposes only window.workbench, isolates the page, and creates a chat through the UI', async () => {
    app = await launch();
    const page = await app.firstWindow();
    const view = ui(page);
    await expect(view.welcome).toBeVisible();

    const surface = await page.evaluate(() => {
      const scope = globalThis as unknown as {
        workbench?: { chat?: Record<string, unknown> };
        require?: unknown;
        process?: unknown;
      };
      return {
        workbench: typeof scope.workbench,
        create: typeof scope.workbench?.chat?.create,
        list: typeof scope.workbench?.chat?.list,
        require: typeof scope.require,
        process: typeof scope.process,
      };
    });
    expect(surface).toEqual({
      workbench: 'object',
      create: 'function',
      list: 'function',
      require: 'undefined',
      process: 'undefined',
    });

    await view.newChat.click();
    await expect(view.items).toHaveCount(1);
    await expect(view.emptyChat).toBeVisible();
    const listed = await page.evaluate(async () => {
      const scope = globalThis as unknown as {
        workbench: { chat: { list(): Promise<{ chats: { title: string }[] }> } };
      };
      return (await scope.workbench.chat.list()).chats.map((chat) => chat.title);
    });
    expect(listed).toEqual(['New chat']);
  });

  /** Opens quick chat the way a person would without the global shortcut: View › Quick Chat. */
  const openQuickChat = async (electronApp: ElectronApplication) => {
    const opened = electronApp.waitForEvent('window', (page) => page.url().endsWith('#/quick'));
    await electronApp.evaluate(({ Menu }) => Menu.getApplicationMenu()?.getMenuItemById('quick-chat')?.click());
    return opened;
  };

  test('opens quick chat from the View menu: a small always-on-top window on #/quick, locked down like the main window', async () => {
    app = await launch();
    await app.firstWindow();
    const quick = await openQuickChat(app);
    expect(quick.url()).toBe('app://workbench/index.html#/quick');
    const shape = await app.evaluate(({ BrowserWindow }) => {
      const window = BrowserWindow.getAllWindows().find((candidate) =>
        candidate.webContents.getURL().endsWith('#/quick'),
      );
      return {
        alwaysOnTop: window?.isAlwaysOnTop(),
        maximizable: window?.isMaximizable(),
        width: window?.getBounds().width,
      };
    });
    expect(shape).toEqual({ alwaysOnTop: true, maximizable: false, width: 520 });
    // Its web preferences are the main window's (unit-tested item by item); here, their effect in the page.
    const reachable = await quick.evaluate(() => {
      const scope = globalThis as unknown as Record<string, unknown>;
      return ['require', 'process', 'module', 'Buffer', 'ipcRenderer'].filter(
        (name) => typeof scope[name] !== 'undefined',
      );
    });
    expect(reachable).toEqual([]);
    // Escape hides it; the menu item brings it back (the same window, not a second one).
    await quick.keyboard.press('Escape');
    await expect
      .poll(() =>
        app?.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().filter((w) => w.isVisible()).length),
      )
      .toBe(1);
    await app.evaluate(({ Menu }) => Menu.getApplicationMenu()?.getMenuItemById('quick-chat')?.click());
    await expect.poll(() => app?.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(2);
    await expect
      .poll(() =>
        app?.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().filter((w) => w.isVisible()).length),
      )
      .toBe(2);
  });

  test('quick chat round trip: a prompt from the quick window, a call that waits for approval there, allowed, and the reply', async () => {
    app = await launch();
    await app.firstWindow();
    const quick = await openQuickChat(app);
    type Api = {
      chat: {
        create(): Promise<{ id: string }>;
        send(input: unknown): Promise<unknown>;
        messages(input: { chatId: string }): Promise<{ messages: { role: string }[]; activity: { status: string } }>;
      };
      approvals: {
        pending(input: {
          chatId: string;
        }): Promise<{ approvals: { request: { toolCallId: string; toolName: string } }[] }>;
      };
    };
    const chatId = await quick.evaluate(async () => {
      const api = (globalThis as unknown as { workbench: Api }).workbench;
      const chat = await api.chat.create();
      // The offline Demo provider turns this into a real list_directory call on the bundled Files server.
      await api.chat.send({ chatId: chat.id, message: { role: 'user', text: 'list files' } });
      return chat.id;
    });
    const pending = async () =>
      quick.evaluate(
        async (id) =>
          (await (globalThis as unknown as { workbench: Api }).workbench.approvals.pending({ chatId: id })).approvals,
        chatId,
      );
    await expect
      .poll(async () => (await pending()).map((approval) => approval.request.toolName), { timeout: 20_000 })
      .toEqual(['list_directory']);
    // While it waits, the tracker counts it: the badge (where the OS shows one) and the tray say so.
    const [waiting] = await pending();
    await quick.evaluate(
      async ({ id, toolCallId }) => {
        const api = (globalThis as unknown as { workbench: Api }).workbench;
        await api.chat.send({
          chatId: id,
          message: { role: 'approval', toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }] },
        });
      },
      { id: chatId, toolCallId: waiting?.request.toolCallId ?? '' },
    );
    await expect
      .poll(
        async () =>
          quick.evaluate(
            async (id) =>
              (await (globalThis as unknown as { workbench: Api }).workbench.chat.messages({ chatId: id })).activity
                .status,
            chatId,
          ),
        {
          timeout: 20_000,
        },
      )
      .toBe('idle');
    const roles = await quick.evaluate(
      async (id) =>
        (await (globalThis as unknown as { workbench: Api }).workbench.chat.messages({ chatId: id })).messages.map(
          (message) => message.role,
        ),
      chatId,
    );
    expect(roles[0]).toBe('user');
    expect(roles).toContain('approval');
    expect(roles.at(-1)).toBe('assistant');
    // The main window sees the same chat: one set of services behind both windows.
    const listed = await (
      await app.firstWindow()
    ).evaluate(async () => {
      const api = (globalThis as unknown as { workbench: { chat: { list(): Promise<{ chats: { id: string }[] }> } } })
        .workbench;
      return (await api.chat.list()).chats.map((chat) => chat.id);
    });
    expect(listed).toContain(chatId);
  });
});
