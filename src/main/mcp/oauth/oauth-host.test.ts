/**
 * The whole OAuth life of a remote server through the MCP host (docs/user/mcp-oauth.md), against the SDK-built fixture:
 * needs-sign-in without a crash loop, sign-in (an HTTP client plays the browser and follows the redirects), a tool
 * call, a token that expired (refreshed quietly, before and after the server says so), a revoked one (needs-sign-in
 * again, never a loop), and where the tokens are (the secret store, never settings.json).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS_FILE_NAME } from '../../settings/settings-store';
import { createTestHost, disposeTestHosts, type TestHost } from '../test-fixtures/harness';
import { startOAuthServer, type OAuthFixture } from '../test-fixtures/oauth-server';
import { oauthSecretKey } from '../server-settings';
import { FLUSH_DELAY_MS } from './oauth-credentials';

let fixture: OAuthFixture | undefined;
afterEach(async () => {
  await disposeTestHosts();
  await fixture?.close();
  fixture = undefined;
});

/** The browser: opens the page and follows its redirects back to the loopback callback. */
function browser(): { open(url: string): boolean; pages: string[] } {
  const pages: string[] = [];
  return { pages, open: (url) => (pages.push(url), void fetch(url).catch(() => undefined), true) };
}

const call = (test: TestHost): Promise<unknown> =>
  test.host.callTool({ serverName: 'remote', toolName: 'whoami', args: {} });

function storedRecord(test: TestHost): {
  tokens?: { access_token: string; refresh_token?: string };
  expiresAt?: number;
} {
  return JSON.parse(test.secrets.get(oauthSecretKey('remote')) ?? '{}');
}

describe('an OAuth-protected MCP server', () => {
  it('waits in needs-sign-in, signs in, calls a tool, refreshes quietly, and after a revocation needs sign-in again', async () => {
    fixture = await startOAuthServer();
    const person = browser();
    const test = createTestHost({ remote: { url: fixture.url } }, { openSignInPage: person.open });

    const waiting = await test.waitFor('remote', 'needs-sign-in');
    expect(waiting.status.message).toMatch(/Sign in/);
    expect(waiting.signedIn).toBe(false);
    // Not a crash loop: it stays there, with no restart and no sign-in nobody asked for.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(test.host.server('remote').status).toMatchObject({ state: 'needs-sign-in', recentCrashes: 0 });
    expect(fixture.counts.authorize + fixture.counts.registrations).toBe(0);
    expect(person.pages).toEqual([]);
    await expect(call(test)).rejects.toMatchObject({ code: 'not_found' });

    const started = await test.host.signIn('remote');
    expect(started.openedBrowser).toBe(true);
    expect(person.pages).toEqual([started.authorizationUrl]);
    await test.host.awaitSignIn('remote');
    const ready = await test.waitFor(
      'remote',
      (server) => server.status.state === 'ready' && server.status.toolCount === 1,
    );
    expect(ready.signedIn).toBe(true);
    expect(await call(test)).toMatchObject({ isError: false, forModel: { text: expect.stringMatching(/^client /) } });

    // The server says the token expired (401): the SDK refreshes and the call goes through.
    fixture.expireAccessTokens();
    expect(await call(test)).toMatchObject({ isError: false });
    expect(fixture.counts.refreshes).toBe(1);

    // We know it is about to expire: refreshed before the request, no 401 on the way. (The refresh above reaches the
    // secret store a moment after its request; wait for it before changing the stored record behind the host's back.)
    await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS + 50));
    const record = storedRecord(test);
    test.secrets.set(oauthSecretKey('remote'), JSON.stringify({ ...record, expiresAt: Date.now() - 1000 }));
    fixture.expireAccessTokens();
    const refused = fixture.counts.unauthorized;
    expect(await call(test)).toMatchObject({ isError: false });
    expect(fixture.counts.refreshes).toBe(2);
    expect(fixture.counts.unauthorized).toBe(refused);
    expect(test.host.server('remote').status.state).toBe('ready');

    // Revoked (or an expired refresh token): needs sign-in, the stored tokens are gone, and it stays there.
    fixture.revokeAll();
    const calls = fixture.counts.toolCalls;
    await expect(call(test)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(fixture.counts.toolCalls).toBe(calls);
    const again = await test.waitFor('remote', 'needs-sign-in');
    expect(again.signedIn).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(test.host.server('remote').status).toMatchObject({ state: 'needs-sign-in', recentCrashes: 0 });
    await expect(call(test)).rejects.toMatchObject({ code: 'unavailable' });

    // Signing in again brings it back.
    await test.host.signIn('remote');
    await test.host.awaitSignIn('remote');
    await test.waitFor('remote', 'ready');
    expect(await call(test)).toMatchObject({ isError: false });

    // Tokens and the client registration live in the secret store only.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS + 50));
    const settingsText = fs.readFileSync(path.join(test.dir, SETTINGS_FILE_NAME), 'utf8');
    const token = storedRecord(test).tokens?.access_token ?? 'missing';
    expect(settingsText).not.toContain(token);
    expect(settingsText).not.toContain('refresh_token');
    expect(JSON.stringify(test.host.list())).not.toContain(token);
  }, 60_000);

  it('a failed sign-in says why and leaves the server waiting', async () => {
    fixture = await startOAuthServer();
    const test = createTestHost(
      { remote: { url: fixture.url } },
      // A browser that comes back with an error (the person said no).
      {
        openSignInPage: (url) => {
          const page = new URL(url);
          void fetch(
            `${page.searchParams.get('redirect_uri')}?error=access_denied&state=${page.searchParams.get('state')}`,
          ).catch(() => undefined);
          return true;
        },
      },
    );
    await test.waitFor('remote', 'needs-sign-in');
    await test.host.signIn('remote');
    await expect(test.host.awaitSignIn('remote')).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/access_denied/),
    });
    const failed = await test.waitFor('remote', (server) => /access_denied/.test(server.status.message ?? ''));
    expect(failed.status.state).toBe('needs-sign-in');
  });

  it('a server with its own Authorization header never starts OAuth', async () => {
    fixture = await startOAuthServer();
    const test = createTestHost({ remote: { url: fixture.url, headers: { Authorization: 'Bearer made-up' } } });
    await expect(test.host.signIn('remote')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
