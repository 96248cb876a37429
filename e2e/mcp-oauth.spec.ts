/**
 * Signing in to an OAuth-protected MCP server in browser mode (docs/user/mcp-oauth.md), against the SDK-built fixture
 * (mcpAuthRouter + requireBearerAuth) run in the test process: needs sign-in, Sign in, the sign-in page opened in the
 * browser (Playwright), back on the loopback callback, the server running with its tool; then its tokens revoked and
 * needs sign-in again. Screenshots of each state, light and dark, in .cache/screenshots/oauth/.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startOAuthServer, type OAuthFixture } from '../src/main/mcp/test-fixtures/oauth-server';
import { ROOT, expect, test } from './fixtures';
import { openSettings } from './settings-helpers';
import { checkAccessibility } from './axe';

const SCREENS = path.join(ROOT, '.cache', 'screenshots', 'oauth');

async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

let fixture: OAuthFixture | undefined;
test.afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: sign in to an OAuth server, use it, lose the sign-in`, async ({ page, context, workbench }) => {
    test.setTimeout(90_000);
    fixture = await startOAuthServer();
    await page.emulateMedia({ colorScheme: scheme });
    await workbench.call('mcp.add', { name: 'Linear', server: { url: fixture.url, displayName: 'Linear (OAuth)' } });

    const dialog = await openSettings(page, workbench, 'MCP servers');
    await dialog
      .getByRole('list', { name: 'Servers' })
      .getByRole('button', { name: /Linear/ })
      .click();
    const detail = dialog.getByRole('region', { name: 'Server Linear' });
    await expect(detail.getByTestId('server-status')).toHaveText('Needs sign-in', { timeout: 15_000 });
    const panel = detail.getByTestId('sign-in-panel');
    await expect(panel).toContainText('Sign in to use this server.');
    await shoot(page, `${scheme}-01-needs-sign-in`);

    // No desktop here: the page cannot open a browser, so the panel shows the sign-in page's address.
    await panel.getByRole('button', { name: 'Sign in' }).click();
    const link = panel.getByTestId('sign-in-link');
    await expect(link).toBeVisible();
    await expect(panel).toContainText('Waiting for you to sign in.');
    await shoot(page, `${scheme}-02-sign-in-started`);

    // The person's browser: the authorization server's page, which sends it back to the loopback callback.
    const address = await link.getAttribute('href');
    expect(address && new URL(address).searchParams.get('code_challenge_method')).toBe('S256');
    const signInTab = await context.newPage();
    await signInTab.emulateMedia({ colorScheme: scheme });
    await signInTab.goto(address as string);
    await expect(signInTab.getByText('Signed in. You can close this tab and return to AI Workbench.')).toBeVisible();
    expect(new URL(signInTab.url()).hostname).toBe('127.0.0.1');
    await shoot(signInTab, `${scheme}-03-callback-page`);
    await signInTab.close();

    await expect(detail.getByTestId('server-status')).toHaveText('Running', { timeout: 15_000 });
    await expect(
      detail.getByRole('table', { name: 'Tools of Linear' }).getByRole('row', { name: /whoami/ }),
    ).toBeVisible();
    await expect(detail).toContainText('Signed in with OAuth');
    await shoot(page, `${scheme}-04-signed-in`);
    expect(fixture.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
    expect(await page.content()).not.toContain('access_token');

    // The authorization server revokes everything: the reconnect cannot refresh, and the server waits for the person.
    fixture.revokeAll();
    await detail.getByRole('button', { name: 'Restart' }).click();
    await expect(detail.getByTestId('server-status')).toHaveText('Needs sign-in', { timeout: 15_000 });
    await expect(detail).not.toContainText('Signed in with OAuth');
    const servers = (await workbench.call('mcp.list')) as {
      servers: { name: string; status: { state: string; recentCrashes: number } }[];
    };
    expect(servers.servers.find((server) => server.name === 'Linear')?.status).toMatchObject({
      state: 'needs-sign-in',
      recentCrashes: 0,
    });
  });
}
