/**
 * The real Electron app through Playwright's Electron support. Runs only where an Electron binary
 * exists: on these machines it cannot be downloaded (TOOLCHAIN.md), so the test is reported as skipped.
 *
 * The binary is found the way node_modules/electron/index.js finds it, without requiring that
 * package: requiring it without a binary tries to download one and throws.
 */
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, type ElectronApplication } from '@playwright/test';
import { ROOT, expect, test } from './fixtures';
import { ui } from './ui';

const MAIN_ENTRY = path.join(ROOT, 'out', 'main', 'index.js');

/** The Electron executable, or null when this machine has none. */
function electronBinary(): string | null {
  const packageDir = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? path.join(override, relative || 'electron')
    : relative
      ? path.join(packageDir, 'dist', relative)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}

const executablePath = electronBinary();

test.describe('the Electron app', () => {
  test.skip(
    executablePath === null,
    'No Electron binary on this machine (node_modules/electron/dist is absent; it cannot be downloaded here) — run where Electron can be installed',
  );

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

  test('exposes only window.workbench, isolates the page, and creates a chat through the UI', async () => {
    app = await electron.launch({
      executablePath: executablePath ?? undefined,
      args: [MAIN_ENTRY],
      cwd: ROOT,
      env: { ...process.env, WORKBENCH_HOME: home },
    });
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
    expect(surface).toEqual({ workbench: 'object', create: 'function', list: 'function', require: 'undefined', process: 'undefined' });

    await view.newChat.click();
    await expect(view.items).toHaveCount(1);
    await expect(view.emptyChat).toBeVisible();
    const listed = await page.evaluate(async () => {
      const scope = globalThis as unknown as { workbench: { chat: { list(): Promise<{ chats: { title: string }[] }> } } };
      return (await scope.workbench.chat.list()).chats.map((chat) => chat.title);
    });
    expect(listed).toEqual(['New chat']);
  });
});
