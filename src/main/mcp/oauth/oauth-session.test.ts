import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileSecretStore, type SecretStore } from '../../settings/secret-store';
import { startOAuthServer, type OAuthFixture } from '../test-fixtures/oauth-server';
import { startLoopbackReceiver } from './loopback-receiver';
import { FLUSH_DELAY_MS } from './oauth-credentials';
import { createOAuthSession } from './oauth-session';
import { isSafeEndpoint, UnsafeEndpointError } from './oauth-provider';

/** The browser's part: follow the authorization page's redirects to the loopback callback. */
function browser(): { open(url: string): boolean; visits: Promise<Response>[] } {
  const visits: Promise<Response>[] = [];
  return { visits, open: (url) => (visits.push(fetch(url)), true) };
}

let home: string;
let secrets: SecretStore;
let fixture: OAuthFixture | undefined;

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'oauth-session-'));
  secrets = openFileSecretStore(path.join(home, 'secrets.json'));
});
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  fs.rmSync(home, { recursive: true, force: true });
});

describe('OAuth sign-in against the SDK-built fixture', () => {
  it('discovers, registers, signs in with PKCE and the resource parameter, and stores tokens in the secret store only', async () => {
    fixture = await startOAuthServer();
    const session = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: fixture.url });
    const person = browser();
    const start = await session.signIn({ open: person.open });
    const page = new URL(start.authorizationUrl);
    expect(page.origin).toBe(fixture.origin);
    expect(page.searchParams.get('code_challenge_method')).toBe('S256');
    expect(page.searchParams.get('code_challenge')).toBeTruthy();
    expect(page.searchParams.get('resource')).toBe(fixture.url);
    expect(page.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await start.done;
    expect(await (await person.visits[0])?.text()).toContain('Signed in');
    expect(session.hasTokens()).toBe(true);
    expect(fixture.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
    expect(fixture.resources).toEqual([fixture.url]);
    const stored = fs.readFileSync(path.join(home, 'secrets.json'), 'utf8');
    expect(stored).toContain('mcp.Remote.oauth');
    expect(stored).toContain('access_token');
  });

  it('refreshes a token that is about to expire before the request goes out', async () => {
    fixture = await startOAuthServer({ accessTokenSeconds: 10 });
    const session = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: fixture.url });
    await (
      await session.signIn({ open: browser().open })
    ).done;
    const before = JSON.parse(secrets.get('mcp.Remote.oauth') ?? '{}').tokens.access_token;
    const response = await session.fetch(fixture.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${before}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    await response.body?.cancel();
    expect(fixture.counts.refreshes).toBe(1);
    // The refreshed tokens reach the secret store a moment after the request that waited for them.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS + 50));
    const after = JSON.parse(secrets.get('mcp.Remote.oauth') ?? '{}').tokens.access_token;
    expect(after).not.toBe(before);
    expect(fixture.authorizations.at(-1)).toBe(`Bearer ${after}`);
  });

  it('keeps nothing for a server whose URL changed: a token never goes to another server', async () => {
    fixture = await startOAuthServer();
    const session = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: fixture.url });
    await (
      await session.signIn({ open: browser().open })
    ).done;
    const moved = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: 'https://elsewhere.example/mcp' });
    expect(moved.hasTokens()).toBe(false);
    expect(moved.provider.tokens()).toBeUndefined();
  });

  it('refuses an authorization server that is plain http and not on this machine, before registering or asking for anything', async () => {
    fixture = await startOAuthServer({
      protectedResourceMetadata: (url) => ({ resource: url, authorization_servers: ['http://login.example.test/'] }),
    });
    const requested: string[] = [];
    const guarded = createOAuthSession({
      secrets,
      serverName: 'Other',
      serverUrl: fixture.url,
      baseFetch: (url, init) => (requested.push(String(url)), fetch(url, init)),
    });
    await expect(guarded.signIn({ open: () => true })).rejects.toBeInstanceOf(UnsafeEndpointError);
    expect(requested.some((url) => url.includes('login.example.test'))).toBe(false);
    expect(fixture.counts.registrations).toBe(0);
  });

  it('refuses protected-resource metadata for another resource (a token for another server)', async () => {
    fixture = await startOAuthServer({
      protectedResourceMetadata: () => ({
        resource: 'https://other.example/mcp',
        authorization_servers: ['http://127.0.0.1:1/'],
      }),
    });
    const session = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: fixture.url });
    await expect(session.signIn({ open: () => true })).rejects.toThrow(/does not match/);
    expect(fixture.counts.authorize).toBe(0);
  });

  it("checks the redirect's iss (RFC 9207): its own issuer is accepted, another one or none (when promised) refused before the code is used", async () => {
    fixture = await startOAuthServer({ issuerInRedirect: { send: 'own' } });
    const honest = createOAuthSession({ secrets, serverName: 'Remote', serverUrl: fixture.url });
    await (
      await honest.signIn({ open: browser().open })
    ).done;
    expect(honest.hasTokens()).toBe(true);
    await fixture.close();

    for (const [send, refusal] of [
      [
        'https://attacker.example/',
        /came back from https:\/\/attacker\.example\/, not from http:\/\/127\.0\.0\.1:\d+\//,
      ],
      ['none', /without naming its authorization server \(iss\)/],
    ] as const) {
      fixture = await startOAuthServer({ issuerInRedirect: { send } });
      const session = createOAuthSession({ secrets, serverName: `Mixed-${send}`, serverUrl: fixture.url });
      const person = browser();
      const start = await session.signIn({ open: person.open });
      await expect(start.done).rejects.toThrow(refusal);
      const page = await person.visits[0];
      expect(page?.status).toBe(400);
      expect(await page?.text()).not.toContain('Signed in');
      expect(fixture.counts.codeExchanges).toBe(0);
      expect(session.hasTokens()).toBe(false);
      await fixture.close();
      fixture = undefined;
    }
  });

  it('knows which endpoints are safe', () => {
    expect(isSafeEndpoint('https://login.example/')).toBe(true);
    expect(isSafeEndpoint('http://127.0.0.1:8080/')).toBe(true);
    expect(isSafeEndpoint('http://localhost/')).toBe(true);
    expect(isSafeEndpoint('http://[::1]/')).toBe(true);
    expect(isSafeEndpoint('http://login.example/')).toBe(false);
    expect(isSafeEndpoint('http://127.0.0.1.evil.example/')).toBe(false);
    expect(isSafeEndpoint('javascript:alert(1)')).toBe(false);
  });
});

describe('the loopback receiver', () => {
  it('answers only GET /callback with the right state, once', async () => {
    const receiver = await startLoopbackReceiver({ state: 'expected', timeoutMs: 10_000 });
    const base = new URL(receiver.redirectUrl);
    expect(base.hostname).toBe('127.0.0.1');
    expect((await fetch(new URL('/other?code=x&state=expected', base))).status).toBe(404);
    expect((await fetch(`${receiver.redirectUrl}?code=stolen&state=wrong`)).status).toBe(400);
    expect((await fetch(`${receiver.redirectUrl}?code=x&state=expected`, { method: 'POST' })).status).toBe(404);
    const page = fetch(
      `${receiver.redirectUrl}?code=good&state=expected&iss=${encodeURIComponent('https://login.example')}`,
    );
    await expect(receiver.code).resolves.toBe('good');
    expect(receiver.issuer()).toBe('https://login.example');
    // One-shot: the listener is gone.
    await expect(fetch(`${receiver.redirectUrl}?code=late&state=expected`)).rejects.toThrow();
    // The browser's page waits for the code exchange, and then says how it went.
    receiver.report({ ok: true });
    const answer = await page;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('Signed in.');
  });

  it('tells the browser the sign-in failed when the code exchange fails, not that it worked', async () => {
    const receiver = await startLoopbackReceiver({ state: 's', timeoutMs: 10_000 });
    const page = fetch(`${receiver.redirectUrl}?code=c&state=s`);
    await receiver.code;
    receiver.report({ ok: false, message: 'The token endpoint said <invalid_grant>.' });
    const answer = await page;
    expect(answer.status).toBe(400);
    const text = await answer.text();
    expect(text).not.toContain('Signed in');
    expect(text).toContain('Sign-in did not complete: The token endpoint said &#60;invalid_grant&#62;.');
  });

  it('gives up after its timeout, and reports a refusal from the server', async () => {
    const slow = await startLoopbackReceiver({ state: 's', timeoutMs: 50 });
    await expect(slow.code).rejects.toThrow(/within/);
    const refused = await startLoopbackReceiver({ state: 's', timeoutMs: 10_000 });
    await fetch(`${refused.redirectUrl}?error=access_denied&state=s`);
    await expect(refused.code).rejects.toThrow(/access_denied/);
  });
});
