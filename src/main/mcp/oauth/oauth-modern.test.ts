/**
 * OAuth against a 2026-07-28 server (docs/user/mcp-oauth.md, docs/dev/protocol-2026.md): the OAuth fixture built from
 * the SDK's server auth, with a 2026-07-28 endpoint that refuses 2025-era traffic, so every request that reaches it
 * came through the SDK v2 client's transport. The full authorization flow runs there: needs-sign-in from the probe's
 * 401, the sign-in, a tool call, a quiet refresh, and the tokens in the secret store under the server's identity and
 * issuer as for a 2025-11-25 server.
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

function browser(): { open(url: string): boolean; pages: string[] } {
  const pages: string[] = [];
  return { pages, open: (url) => (pages.push(url), void fetch(url).catch(() => undefined), true) };
}

const call = (test: TestHost): Promise<unknown> =>
  test.host.callTool({ serverName: 'remote', toolName: 'whoami', args: {} });

describe('an OAuth-protected 2026-07-28 server', () => {
  it('needs sign-in, signs in through the v2 transport, calls a tool, refreshes quietly, keeps its tokens as before', async () => {
    fixture = await startOAuthServer({ protocol: '2026-07-28' });
    const person = browser();
    const test = createTestHost({ remote: { url: fixture.url } }, { openSignInPage: person.open });

    const waiting = await test.waitFor('remote', 'needs-sign-in');
    expect(waiting.status.message).toMatch(/Sign in/);
    expect(fixture.counts.authorize + fixture.counts.registrations).toBe(0);

    await test.host.signIn('remote');
    await test.host.awaitSignIn('remote');
    const ready = await test.waitFor(
      'remote',
      (server) => server.status.state === 'ready' && server.status.toolCount === 1,
    );
    expect(ready.signedIn).toBe(true);
    expect(ready.status.protocolVersion).toBe('2026-07-28');
    expect(await call(test)).toMatchObject({ isError: false, forModel: { text: 'client (2026-07-28)' } });
    expect(fixture.authorizations.at(-1)).toMatch(/^Bearer /);

    // The server says the token expired (401): the provider refreshes and the call goes through.
    fixture.expireAccessTokens();
    expect(await call(test)).toMatchObject({ isError: false });
    expect(fixture.counts.refreshes).toBe(1);

    // The tokens are where a 2025-11-25 server's are: the secret store, with the issuer they came from.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS + 50));
    const record = JSON.parse(test.secrets.get(oauthSecretKey('remote')) ?? '{}') as Record<string, unknown>;
    const token = (record['tokens'] as { access_token?: string } | undefined)?.access_token ?? 'missing';
    expect(token).not.toBe('missing');
    expect(JSON.stringify(record)).toContain(fixture.origin);
    const settingsText = fs.readFileSync(path.join(test.dir, SETTINGS_FILE_NAME), 'utf8');
    expect(settingsText).not.toContain(token);
  }, 60_000);
});
