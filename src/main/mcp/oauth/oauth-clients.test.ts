/**
 * OAuth beyond the plain sign-in, through the MCP host against the SDK-built fixture (docs/user/mcp-oauth.md): a
 * step-up when the server asks for more scopes, a pre-registered client with a secret (sent as the authorization
 * server's metadata asks: basic or post), and the organisation's pre-registered client applied by issuer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS_FILE_NAME } from '../../settings/settings-store';
import { createTestHost, disposeTestHosts, type TestHost } from '../test-fixtures/harness';
import { startOAuthServer, type OAuthFixture } from '../test-fixtures/oauth-server';
import { DEFAULT_CLIENT_METADATA_URL } from './oauth-session';

/** AI Workbench's client metadata document as published (docs/user/mcp-oauth.md#client-registration). */
const PUBLISHED_DOCUMENT = fileURLToPath(new URL('../../../../docs/oauth/client-metadata.json', import.meta.url));

let fixture: OAuthFixture | undefined;
afterEach(async () => {
  await disposeTestHosts();
  await fixture?.close();
  fixture = undefined;
});

/** The browser: opens the page and follows its redirects back to the loopback callback. */
const browser = (url: string): boolean => (void fetch(url).catch(() => undefined), true);

async function signIn(test: TestHost): Promise<string> {
  const started = await test.host.signIn('remote');
  await test.host.awaitSignIn('remote');
  return started.authorizationUrl;
}

const ready = (test: TestHost, tools = 1): Promise<unknown> =>
  test.waitFor('remote', (server) => server.status.state === 'ready' && server.status.toolCount === tools);

const call = (test: TestHost, toolName: string): Promise<unknown> =>
  test.host.callTool({ serverName: 'remote', toolName, args: {} });

describe('OAuth clients and scopes', () => {
  it('a 403 insufficient_scope is told as "needs more access: <scopes>", and the next sign-in asks for the union', async () => {
    fixture = await startOAuthServer({ stepUpScope: 'mcp:write' });
    const test = createTestHost({ remote: { url: fixture.url } }, { openSignInPage: browser });
    await test.waitFor('remote', 'needs-sign-in');
    const first = new URL(await signIn(test));
    expect(first.searchParams.get('scope')).toBe('mcp:tools');
    await ready(test, 2);
    expect(await call(test, 'whoami')).toMatchObject({ isError: false });

    const calls = fixture.counts.toolCalls;
    await expect(call(test, 'publish')).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('remote needs more access: mcp:write.'),
    });
    expect(fixture.counts.toolCalls).toBe(calls);
    const waiting = await test.waitFor('remote', 'needs-sign-in');
    // Told as more access, not as a token the server stopped accepting.
    expect(waiting.status.message).toContain('remote needs more access: mcp:write.');
    expect(waiting.status.message).not.toMatch(/no longer accepts/);
    // Nothing signed in by itself.
    expect(fixture.counts.authorize).toBe(1);

    // What was granted, and what the server asked for.
    const second = new URL(await signIn(test));
    expect(second.searchParams.get('scope')).toBe('mcp:tools mcp:write');
    expect(fixture.authorizeScopes).toEqual(['mcp:tools', 'mcp:tools mcp:write']);
    await ready(test, 2);
    expect(await call(test, 'publish')).toMatchObject({
      isError: false,
      forModel: { text: 'published with mcp:tools mcp:write' },
    });
  }, 60_000);

  for (const authMethod of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`a pre-registered client with a secret signs in with ${authMethod}, as the server's metadata asks`, async () => {
      fixture = await startOAuthServer({
        registration: false,
        preRegisteredClient: { clientId: 'wb-123', clientSecret: 'the-secret', authMethod },
      });
      const test = createTestHost(
        { remote: { url: fixture.url, oauthClientId: 'wb-123', oauthClientSecret: 'the-secret' } },
        { openSignInPage: browser },
      );
      await test.waitFor('remote', 'needs-sign-in');
      await signIn(test);
      await ready(test);
      expect(await call(test, 'whoami')).toMatchObject({ isError: false, forModel: { text: 'client wb-123' } });
      expect(fixture.counts.registrations).toBe(0);
      expect(fixture.tokenAuthMethods).toEqual([authMethod]);
      // Refreshing authenticates the same way.
      fixture.expireAccessTokens();
      expect(await call(test, 'whoami')).toMatchObject({ isError: false });
      expect(fixture.tokenAuthMethods).toEqual([authMethod, authMethod]);
      // The secret is kept with the other secrets, never in settings.json.
      expect(fs.readFileSync(path.join(test.dir, SETTINGS_FILE_NAME), 'utf8')).not.toContain('the-secret');
      expect(JSON.stringify(test.host.list())).not.toContain('the-secret');
    }, 60_000);
  }

  it("the organisation's pre-registered client for an authorization server is used for it, with its secret", async () => {
    const server = await startOAuthServer({
      registration: false,
      preRegisteredClient: { clientId: 'org-client', clientSecret: 'org-secret', authMethod: 'client_secret_post' },
    });
    fixture = server;
    const test = createTestHost(
      { remote: { url: server.url } },
      {
        openSignInPage: browser,
        // As an administrator writes it: the issuer without its trailing slash.
        oauthPolicy: () => ({ clients: { [server.origin]: { clientId: 'org-client', clientSecret: 'org-secret' } } }),
      },
    );
    await test.waitFor('remote', 'needs-sign-in');
    const page = new URL(await signIn(test));
    expect(page.searchParams.get('client_id')).toBe('org-client');
    await ready(test);
    expect(await call(test, 'whoami')).toMatchObject({ isError: false, forModel: { text: 'client org-client' } });
    expect(server.tokenAuthMethods).toEqual(['client_secret_post']);
    expect(server.counts.registrations).toBe(0);
  }, 60_000);

  it('the published client metadata document is the default URL-based client id, and it accepts the loopback redirect', async () => {
    const document = JSON.parse(fs.readFileSync(PUBLISHED_DOCUMENT, 'utf8')) as Record<string, unknown>;
    expect(document.client_id).toBe(DEFAULT_CLIENT_METADATA_URL);
    expect(OAuthClientMetadataSchema.safeParse(document).success).toBe(true);
    fixture = await startOAuthServer({ clientMetadataDocuments: { [DEFAULT_CLIENT_METADATA_URL]: document } });
    const test = createTestHost({ remote: { url: fixture.url } }, { openSignInPage: browser });
    await test.waitFor('remote', 'needs-sign-in');
    const page = new URL(await signIn(test));
    expect(page.searchParams.get('client_id')).toBe(DEFAULT_CLIENT_METADATA_URL);
    await ready(test);
    expect(await call(test, 'whoami')).toMatchObject({
      isError: false,
      forModel: { text: `client ${DEFAULT_CLIENT_METADATA_URL}` },
    });
    expect(fixture.counts.registrations).toBe(0);
  }, 60_000);

  it("the organisation's client metadata document replaces the default", async () => {
    const url = 'https://it.example.com/ai-workbench/client-metadata.json';
    const published = JSON.parse(fs.readFileSync(PUBLISHED_DOCUMENT, 'utf8')) as Record<string, unknown>;
    const server = await startOAuthServer({ clientMetadataDocuments: { [url]: { ...published, client_id: url } } });
    fixture = server;
    const test = createTestHost(
      { remote: { url: server.url } },
      { openSignInPage: browser, oauthPolicy: () => ({ clientMetadataUrl: url }) },
    );
    await test.waitFor('remote', 'needs-sign-in');
    expect(new URL(await signIn(test)).searchParams.get('client_id')).toBe(url);
    await ready(test);
    expect(await call(test, 'whoami')).toMatchObject({ isError: false, forModel: { text: `client ${url}` } });
    expect(server.counts.registrations).toBe(0);
  }, 60_000);
});
