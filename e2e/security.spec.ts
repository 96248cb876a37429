/**
 * Browser mode's defences, seen from outside: the per-launch token, the Origin check, the CSP,
 * and a page that runs without console errors or CSP violations.
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { cspViolations, expect, recordCspViolations, test, watchPageProblems, type Workbench } from './fixtures';
import { createChat, ui } from './ui';

interface UpgradeOutcome {
  opened: boolean;
  status: number | null;
}

/** Tries a WebSocket upgrade from Node and reports whether it opened or the HTTP status it was refused with. */
function tryUpgrade(workbench: Workbench, protocols: string[], origin: string): Promise<UpgradeOutcome> {
  const socket = new WebSocket(`${workbench.origin.replace(/^http/, 'ws')}/ws`, protocols, { origin });
  return new Promise((resolve) => {
    socket.once('open', () => {
      socket.close();
      resolve({ opened: true, status: null });
    });
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      resolve({ opened: false, status: response.statusCode ?? null });
      socket.terminate();
    });
    // Without an 'unexpected-response' the refusal still surfaces as an error; the status then stays unknown.
    socket.once('error', () => resolve({ opened: false, status: null }));
  });
}

test('without a token the page explains where to find its link and shows no chats', async ({ page, workbench }) => {
  await workbench.call('chat.create', { title: 'A private chat' });
  await page.goto(`${workbench.origin}/`);
  const view = ui(page);
  await expect(view.missingToken).toBeVisible();
  await expect(page.getByText('AI Workbench (browser mode) ready at')).toBeVisible();
  await expect(view.sidebar).toHaveCount(0);
  await expect(page.getByText('A private chat')).toHaveCount(0);
  await expect(view.newChat).toHaveCount(0);
});

test('a WebSocket from the page with a wrong token is refused', async ({ page, workbench }) => {
  await page.goto(`${workbench.origin}/`);
  await expect(ui(page).missingToken).toBeVisible();
  const outcome = await page.evaluate(
    (url) =>
      new Promise<{ opened: boolean; closed: boolean; protocol: string }>((resolve) => {
        const socket = new WebSocket(url, ['aiwb.v1', 'aiwb.token.wrong']);
        let opened = false;
        socket.onopen = () => {
          opened = true;
        };
        socket.onclose = () => resolve({ opened, closed: true, protocol: socket.protocol });
      }),
    `${workbench.origin.replace(/^http/, 'ws')}/ws`,
  );
  expect(outcome).toEqual({ opened: false, closed: true, protocol: '' });

  // The same page with the right token gets through: the refusal above was about the token alone.
  const token = workbench.token;
  const good = await page.evaluate(
    ({ url, token }) =>
      new Promise<boolean>((resolve) => {
        const socket = new WebSocket(url, ['aiwb.v1', `aiwb.token.${token}`]);
        socket.onopen = () => {
          socket.close();
          resolve(true);
        };
        socket.onclose = () => resolve(false);
      }),
    { url: `${workbench.origin.replace(/^http/, 'ws')}/ws`, token },
  );
  expect(good).toBe(true);
});

test('the WebSocket refuses a missing or wrong token (401) and a foreign origin (403)', async ({ workbench }) => {
  const origin = workbench.origin;
  expect(await tryUpgrade(workbench, ['aiwb.v1'], origin)).toEqual({ opened: false, status: 401 });
  expect(await tryUpgrade(workbench, ['aiwb.v1', 'aiwb.token.wrong'], origin)).toEqual({ opened: false, status: 401 });
  expect(await tryUpgrade(workbench, ['aiwb.v1', `aiwb.token.${workbench.token}x`], origin)).toEqual({
    opened: false,
    status: 401,
  });
  expect(await tryUpgrade(workbench, ['aiwb.v1', `aiwb.token.${workbench.token}`], 'http://evil.example')).toEqual({
    opened: false,
    status: 403,
  });
  expect(await tryUpgrade(workbench, ['aiwb.v1', `aiwb.token.${workbench.token}`], 'http://127.0.0.1:1')).toEqual({
    opened: false,
    status: 403,
  });
  // The right token from the right origin opens (so the refusals above are not a broken server).
  expect(await tryUpgrade(workbench, ['aiwb.v1', `aiwb.token.${workbench.token}`], origin)).toEqual({
    opened: true,
    status: null,
  });
});

test('pages and assets carry a strict Content-Security-Policy', async ({ page, workbench }) => {
  const response = await fetch(`${workbench.origin}/`);
  expect(response.status).toBe(200);
  const csp = response.headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name = '', ...values]) => [name, values]),
  );
  expect(directives.get('default-src')).toEqual(["'none'"]);
  expect(directives.get('script-src')).toEqual(["'self'"]);
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');

  // Every asset the page loads carries the same policy.
  const assets: string[] = [];
  page.on('response', (asset) => {
    if (asset.url().startsWith(workbench.origin))
      assets.push(asset.headers()['content-security-policy'] ?? `(none on ${asset.url()})`);
  });
  await page.goto(workbench.url);
  await expect(ui(page).welcome).toBeVisible();
  expect(assets.length).toBeGreaterThanOrEqual(3);
  for (const header of assets) expect(header).toBe(csp);
});

test('the chat flow logs no console errors and no CSP violations', async ({ page, workbench }) => {
  const problems = watchPageProblems(page);
  await recordCspViolations(page);
  await page.goto(workbench.url);
  const view = ui(page);
  await expect(view.welcome).toBeVisible();

  await createChat(page);
  await view.renameButton('New chat').click();
  await view.titleEditor.fill('Checked for errors');
  await view.titleEditor.press('Enter');
  await expect(view.itemButton('Checked for errors')).toBeVisible();
  await view.chatTitleButton.click();
  await view.titleEditor.fill('');
  await view.titleEditor.press('Enter');
  await expect(view.titleProblem).toBeVisible();
  await view.titleEditor.press('Escape');
  await createChat(page);
  await view.search.fill('checked');
  await expect(view.items).toHaveCount(1);
  await view.search.fill('');
  await view.item('Checked for errors').hover();
  await view.deleteButton('Checked for errors').click();
  await view.deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(view.items).toHaveCount(1);
  await page.reload();
  await expect(view.items).toHaveCount(1);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(view.emptyChat).toBeVisible();

  expect(problems).toEqual([]);
  expect(await cspViolations(page)).toEqual([]);
});
