/**
 * Cross-app access (docs/user/mcp-oauth.md#cross-app-access) through the MCP host, against the OAuth fixture built
 * from the SDK's server auth (its authorization server taking the JWT-bearer grant) and an identity provider that
 * exchanges ID tokens for ID-JAGs: the server is reached with no browser and no person, the ID token goes to the
 * identity provider only, a refused ID token is "needs sign-in" with what to do, and a new one signs in again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRETS_FILE_NAME } from '../../settings/secret-store';
import { SETTINGS_FILE_NAME } from '../../settings/settings-store';
import { createTestHost, disposeTestHosts, type TestHost } from '../test-fixtures/harness';
import { startIdentityProvider, type IdentityProviderFixture } from '../test-fixtures/identity-provider';
import { startOAuthServer, type OAuthFixture } from '../test-fixtures/oauth-server';
import { ManagedOAuthSchema } from '../../../shared/approval';
import { organisationIdpLookup } from '../../approval/organisation-idp-lookup';

let fixture: OAuthFixture | undefined;
let idp: IdentityProviderFixture | undefined;
afterEach(async () => {
  await disposeTestHosts();
  await fixture?.close();
  await idp?.close();
  fixture = idp = undefined;
});

const MCP_CLIENT = { clientId: 'wb-xaa', clientSecret: 'mcp-client-secret' };

async function start(
  idToken: string | undefined,
  { browser, organisationClient = false }: { browser?: string[]; organisationClient?: boolean } = {},
) {
  idp = await startIdentityProvider({ mcpClientId: MCP_CLIENT.clientId });
  const server = await startOAuthServer({
    registration: false,
    preRegisteredClient: { ...MCP_CLIENT, authMethod: 'client_secret_basic' },
    jwtBearer: { idp },
  });
  fixture = server;
  const test = createTestHost(
    {
      remote: {
        url: server.url,
        // The client registered at the server's authorization server: the person's, or the organisation's by issuer.
        ...(organisationClient
          ? {}
          : { oauthClientId: MCP_CLIENT.clientId, oauthClientSecret: MCP_CLIENT.clientSecret }),
        crossAppAccess: { idpIssuer: idp.issuer, idpClientId: idp.clientId },
        idpClientSecret: idp.clientSecret,
        ...(idToken ? { idpIdToken: idToken } : {}),
      },
    },
    {
      openSignInPage: (url) => (browser?.push(url), false),
      ...(organisationClient ? { oauthPolicy: () => ({ clients: { [server.origin]: MCP_CLIENT } }) } : {}),
    },
  );
  return { test, idp, fixture: server };
}

const ready = (test: TestHost): Promise<unknown> =>
  test.waitFor('remote', (server) => server.status.state === 'ready' && server.status.toolCount === 1);

describe('cross-app access', () => {
  it('reaches the server through the identity provider: no browser, the ID token to the identity provider only', async () => {
    const opened: string[] = [];
    const { test, fixture: server, idp: provider } = await start(undefined, { browser: opened });
    const idToken = await provider.idToken('ada@example.com');
    test.config.edit({ name: 'remote', idpIdToken: idToken });
    await test.host.signInAsClient('remote');
    await ready(test);
    expect(await test.host.callTool({ serverName: 'remote', toolName: 'whoami', args: {} })).toMatchObject({
      isError: false,
      forModel: { text: `client ${MCP_CLIENT.clientId}` },
    });

    // The exchange at the identity provider: the person's ID token, for this server's authorization server and
    // resource, as the client registered there.
    expect(provider.exchanges.at(-1)).toMatchObject({
      subjectToken: idToken,
      subjectTokenType: 'urn:ietf:params:oauth:token-type:id_token',
      requestedTokenType: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: `${server.origin}/`,
      resource: server.url,
      clientId: provider.clientId,
    });
    // The JWT-bearer grant at the authorization server, as the pre-registered client (basic): no browser, no code.
    expect(server.counts.jwtBearer).toBeGreaterThanOrEqual(1);
    expect(server.tokenAuthMethods.at(-1)).toBe('client_secret_basic');
    expect(server.counts.authorize).toBe(0);
    expect(opened).toEqual([]);
    // The ID token and the secrets: in the secret store only; never in settings.json, the views, or the logs.
    const settingsText = fs.readFileSync(path.join(test.dir, SETTINGS_FILE_NAME), 'utf8');
    for (const secret of [idToken, provider.clientSecret, MCP_CLIENT.clientSecret]) {
      expect(settingsText).not.toContain(secret);
      expect(JSON.stringify(test.host.list())).not.toContain(secret);
      expect(JSON.stringify(test.host.logs('remote'))).not.toContain(secret);
    }
    expect(fs.readFileSync(path.join(test.dir, SECRETS_FILE_NAME), 'utf8').length).toBeGreaterThan(0);
    expect(test.host.list().find((item) => item.name === 'remote')).toMatchObject({
      crossAppAccess: { idpIssuer: provider.issuer, idpClientId: provider.clientId },
    });
  }, 60_000);

  it('with an ID token, the server comes up by itself; an expired access token gets a new grant quietly', async () => {
    const { test, fixture: server, idp: provider } = await start(undefined);
    test.config.edit({ name: 'remote', idpIdToken: await provider.idToken() });
    await test.host.restart('remote');
    await ready(test);
    const grants = server.counts.jwtBearer;
    server.expireAccessTokens();
    expect(await test.host.callTool({ serverName: 'remote', toolName: 'whoami', args: {} })).toMatchObject({
      isError: false,
    });
    expect(server.counts.jwtBearer).toBe(grants + 1);
    expect(server.counts.authorize).toBe(0);
  }, 60_000);

  it('an ID token the identity provider refuses is "needs sign-in" saying what to do; a new one signs in', async () => {
    const { test, idp: provider, fixture: server } = await start(undefined);
    test.config.edit({ name: 'remote', idpIdToken: await provider.idToken('ada@example.com', -60) });
    await test.host.restart('remote');
    const waiting = await test.waitFor('remote', 'needs-sign-in');
    expect(waiting.status.message).toContain('Your identity provider did not give access to remote');
    expect(waiting.status.message).toContain('workbench servers login remote --id-token-stdin');
    expect(server.counts.jwtBearer).toBe(0);
    // The app's browser sign-in is not how this server signs in: it says so.
    await expect(test.host.signIn('remote')).rejects.toThrow(/signs in through your identity provider/);

    test.config.edit({ name: 'remote', idpIdToken: await provider.idToken('ada@example.com') });
    await test.host.signInAsClient('remote');
    await ready(test);
    expect(server.counts.jwtBearer).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("the organisation's client for the authorization server (oauth.clients) is the one cross-app access uses", async () => {
    const { test, idp: provider, fixture: server } = await start(undefined, { organisationClient: true });
    test.config.edit({ name: 'remote', idpIdToken: await provider.idToken() });
    await test.host.signInAsClient('remote');
    await ready(test);
    expect(server.tokenAuthMethods.at(-1)).toBe('client_secret_basic');
    expect(server.counts.jwtBearer).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("the organisation's identity provider (oauth.crossAppAccess) is the one used; locked, the person's is not", async () => {
    const provider = await startIdentityProvider({ mcpClientId: MCP_CLIENT.clientId });
    idp = provider;
    const server = await startOAuthServer({
      registration: false,
      preRegisteredClient: { ...MCP_CLIENT, authMethod: 'client_secret_basic' },
      jwtBearer: { idp: provider },
    });
    fixture = server;
    // The organisation's identity provider, locked and with its client's secret there.
    const organisation = ManagedOAuthSchema.parse({
      clients: { [server.origin]: MCP_CLIENT },
      crossAppAccess: [
        {
          server: 'crm',
          idpIssuer: provider.issuer,
          idpClientId: provider.clientId,
          idpClientSecret: provider.clientSecret,
          locked: true,
        },
      ],
    });
    const test = createTestHost(
      {
        crm: { url: server.url },
      },
      {
        oauthPolicy: () => organisation,
        organisationIdp: organisationIdpLookup(organisation.crossAppAccess ?? []),
      },
    );
    // A rename does not escape it.
    test.config.edit({ name: 'crm', rename: 'sales' });
    expect(test.config.get('sales')).toMatchObject({
      crossAppAccess: { idpIssuer: provider.issuer, idpClientId: provider.clientId },
      crossAppAccessByOrganisation: { locked: true, clientSecret: true },
    });
    // The person's ID token is theirs to give; the identity provider is not theirs to change.
    const idToken = await provider.idToken('ada@example.com');
    test.config.edit({ name: 'sales', idpIdToken: idToken });
    expect(() =>
      test.config.edit({ name: 'sales', crossAppAccess: { idpIssuer: 'https://mine.example', idpClientId: 'x' } }),
    ).toThrow(/Set by your organisation: the identity provider "sales" signs in through/);
    expect(() => test.config.edit({ name: 'sales', idpClientSecret: 'another' })).toThrow(/Set by your organisation/);
    expect(() => test.config.edit({ name: 'sales', crossAppAccess: null })).toThrow(/Set by your organisation/);
    expect(() =>
      test.config.add('crm', {
        url: server.url,
        crossAppAccess: { idpIssuer: 'https://mine.example', idpClientId: 'x' },
      }),
    ).toThrow(/Set by your organisation/);

    await test.host.signInAsClient('sales');
    await test.waitFor('sales', (view) => view.status.state === 'ready' && view.status.toolCount === 1);
    expect(await test.host.callTool({ serverName: 'sales', toolName: 'whoami', args: {} })).toMatchObject({
      isError: false,
      forModel: { text: `client ${MCP_CLIENT.clientId}` },
    });
    // The exchange went to the organisation's identity provider, as its client there, with the person's ID token.
    expect(provider.exchanges.at(-1)).toMatchObject({ subjectToken: idToken, clientId: provider.clientId });
    expect(server.counts.jwtBearer).toBeGreaterThanOrEqual(1);
    expect(server.counts.authorize).toBe(0);
    // The organisation's secret is in no view, no log, and not in the person's files.
    const settingsText = fs.readFileSync(path.join(test.dir, SETTINGS_FILE_NAME), 'utf8');
    const secretsText = fs.readFileSync(path.join(test.dir, SECRETS_FILE_NAME), 'utf8');
    expect(settingsText).not.toContain(provider.clientSecret);
    expect(secretsText).not.toContain(provider.clientSecret);
    expect(JSON.stringify(test.host.list())).not.toContain(provider.clientSecret);
    expect(JSON.stringify(test.host.logs('sales'))).not.toContain(provider.clientSecret);
    expect(test.config.secretValues('sales')).toContain(provider.clientSecret);
  }, 60_000);

  it("the organisation's default identity provider applies to a named server without one of its own", async () => {
    const provider = await startIdentityProvider({ mcpClientId: MCP_CLIENT.clientId });
    idp = provider;
    const server = await startOAuthServer({
      registration: false,
      preRegisteredClient: { ...MCP_CLIENT, authMethod: 'client_secret_basic' },
      jwtBearer: { idp: provider },
    });
    fixture = server;
    const organisation = ManagedOAuthSchema.parse({
      clients: { [server.origin]: MCP_CLIENT },
      crossAppAccess: [
        {
          serverIdentity: { url: `${server.origin}/**` },
          idpIssuer: provider.issuer,
          idpClientId: provider.clientId,
          idpClientSecret: provider.clientSecret,
        },
      ],
    });
    const idToken = await provider.idToken('ada@example.com');
    const test = createTestHost(
      { crm: { url: server.url, idpIdToken: idToken } },
      {
        oauthPolicy: () => organisation,
        organisationIdp: organisationIdpLookup(organisation.crossAppAccess ?? []),
      },
    );
    expect(test.config.get('crm').crossAppAccessByOrganisation).toEqual({ locked: false, clientSecret: true });
    await test.host.signInAsClient('crm');
    await test.waitFor('crm', (view) => view.status.state === 'ready' && view.status.toolCount === 1);
    expect(provider.exchanges.at(-1)).toMatchObject({ subjectToken: idToken, clientId: provider.clientId });
    // An identity provider of the person's own takes its place, without the organisation's client secret.
    const own = { idpIssuer: 'https://mine.example', idpClientId: 'mine' };
    test.config.edit({ name: 'crm', crossAppAccess: own });
    expect(test.config.get('crm').crossAppAccessByOrganisation).toBeUndefined();
    const launch = test.config.launchConfig('crm');
    expect(launch).toMatchObject({ crossAppAccess: own, oauthClient: { idToken } });
    expect(JSON.stringify(launch)).not.toContain(provider.clientSecret);
  }, 60_000);

  it('without a client at the authorization server, or with an identity provider on plain http elsewhere, nothing is sent', async () => {
    const { test, idp: provider } = await start(undefined);
    test.config.add('half', {
      url: fixture?.url as string,
      crossAppAccess: { idpIssuer: provider.issuer, idpClientId: provider.clientId },
      idpIdToken: await provider.idToken(),
    });
    const half = await test.waitFor('half', 'needs-sign-in');
    expect(half.status.message).toContain('needs the client id and secret registered at its authorization server');

    test.config.edit({
      name: 'remote',
      crossAppAccess: { idpIssuer: 'http://idp.example.com', idpClientId: 'x' },
      idpIdToken: 'a.b.c',
    });
    await test.host.restart('remote');
    const failed = await test.waitFor('remote', (server) =>
      /neither https nor on this machine/.test(server.status.message ?? ''),
    );
    expect(failed.status.message).toContain('http://idp.example.com');
    // The ID token went to no identity provider but the one configured first (and only in the first test's exchange).
    expect(provider.exchanges).toHaveLength(0);
  }, 60_000);
});
