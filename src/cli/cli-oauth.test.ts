/** `workbench servers login NAME` against the SDK-built OAuth fixture: it prints the sign-in address (no desktop here), waits for the browser, and stores the tokens. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startIdentityProvider, type IdentityProviderFixture } from '../main/mcp/test-fixtures/identity-provider';
import { startOAuthServer, type OAuthFixture } from '../main/mcp/test-fixtures/oauth-server';
import { assertBuilt, CLI_ENTRY, cliEnv, cliJson, makeHome, ROOT, runCli } from './testing/cli-process';

let fixture: OAuthFixture | undefined;
let idp: IdentityProviderFixture | undefined;
let home: string | undefined;
afterEach(async () => {
  await fixture?.close();
  await idp?.close();
  fixture = idp = undefined;
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('workbench servers login', () => {
  it('prints the sign-in page, waits for the browser to come back, and is signed in', async () => {
    assertBuilt();
    fixture = await startOAuthServer();
    home = makeHome();
    await cliJson(['servers', 'add', 'remote', '--url', fixture.url], { home });
    const child = spawn(process.execPath, [CLI_ENTRY, 'servers', 'login', 'remote'], {
      cwd: ROOT,
      env: cliEnv(home, { DISPLAY: undefined, WAYLAND_DISPLAY: undefined }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let visited = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const address = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (address && !visited) {
        visited = true;
        // The person's browser: the authorization page sends it back to the CLI's loopback receiver.
        void fetch(address).catch(() => undefined);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toContain('Open this address in a browser on this machine to sign in to remote:');
    expect(code).toBe(0);
    expect(stdout).toContain('Signed in to remote.');
    const servers = await cliJson<{ name: string; signedIn?: boolean }[]>(['servers', 'list'], { home });
    expect(servers.find((server) => server.name === 'remote')?.signedIn).toBe(true);
    expect(fs.readFileSync(`${home}/settings.json`, 'utf8')).not.toContain('access_token');
  }, 60_000);

  it('opens the browser on an owner-only page: the sign-in address (state, PKCE challenge, port) is on no command line', async () => {
    assertBuilt();
    fixture = await startOAuthServer();
    home = makeHome();
    await cliJson(['servers', 'add', 'remote', '--url', fixture.url], { home });
    // A desktop whose xdg-open records what it was given, where any local process could read it (/proc/PID/cmdline).
    const bin = path.join(home, 'fake-bin');
    const argvFile = path.join(home, 'xdg-open-argv');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvFile}'\n`, { mode: 0o755 });
    const child = spawn(process.execPath, [CLI_ENTRY, 'servers', 'login', 'remote'], {
      cwd: ROOT,
      env: cliEnv(home, { DISPLAY: ':99', WAYLAND_DISPLAY: undefined, PATH: `${bin}:${process.env.PATH ?? ''}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const address = await new Promise<string>((resolve) => {
      const poll = setInterval(() => {
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
        if (match && fs.existsSync(argvFile)) {
          clearInterval(poll);
          resolve(match);
        }
      }, 50);
    });
    const argv = fs.readFileSync(argvFile, 'utf8').trim();
    const authorize = new URL(address);
    expect(argv).toMatch(/^file:\/\/\S+\.html$/);
    for (const secret of [
      authorize.searchParams.get('state'),
      authorize.searchParams.get('code_challenge'),
      new URL(authorize.searchParams.get('redirect_uri') as string).port,
    ]) {
      expect(secret).toBeTruthy();
      expect(argv).not.toContain(secret);
    }
    // The page the browser opens leads on to the sign-in, and only its owner can read it.
    const page = fileURLToPath(argv);
    expect(fs.readFileSync(page, 'utf8')).toContain(JSON.stringify(address));
    expect(fs.statSync(page).mode & 0o077).toBe(0);
    await fetch(address).catch(() => undefined);
    expect(await closed).toBe(0);
  }, 60_000);

  it('--client-credentials signs in as the pre-registered client itself: no browser, its secret sent as the metadata asks, new tokens fetched quietly', async () => {
    assertBuilt();
    fixture = await startOAuthServer({
      registration: false,
      preRegisteredClient: {
        clientId: 'wb-ci',
        clientSecret: 'ci-secret',
        authMethod: 'client_secret_basic',
        clientCredentials: true,
      },
    });
    home = makeHome();
    const env = { CI_SECRET: 'ci-secret' };
    await cliJson(
      [
        'servers',
        'add',
        'remote',
        '--url',
        fixture.url,
        '--oauth-client-id',
        'wb-ci',
        '--oauth-client-secret-env',
        'CI_SECRET',
      ],
      { home, env },
    );
    const login = await runCli(['servers', 'login', 'remote', '--client-credentials'], { home, input: '' });
    expect(login).toMatchObject({ code: 0, stdout: 'Signed in to remote as its client.\n' });
    expect(fixture.counts).toMatchObject({ clientCredentials: 1, authorize: 0, registrations: 0 });
    expect(fixture.tokenAuthMethods).toEqual(['client_secret_basic']);
    const tools = await cliJson<{ name: string }[]>(['servers', 'tools', 'remote'], { home });
    expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
    // The token expired: the client gets a new one the same way, with nobody there.
    fixture.expireAccessTokens();
    expect(await cliJson<{ name: string }[]>(['servers', 'tools', 'remote'], { home })).toHaveLength(1);
    expect(fixture.counts).toMatchObject({ clientCredentials: 2, authorize: 0 });
    expect(fs.readFileSync(`${home}/settings.json`, 'utf8')).not.toContain('ci-secret');
  }, 60_000);

  it("the organisation policy's oauth.clients entry is the client for its authorization server", async () => {
    assertBuilt();
    fixture = await startOAuthServer({
      registration: false,
      preRegisteredClient: {
        clientId: 'org-ci',
        clientSecret: 'org-secret',
        authMethod: 'client_secret_post',
        clientCredentials: true,
      },
    });
    home = makeHome();
    const policy = path.join(home, 'organisation-policy.json');
    fs.writeFileSync(
      policy,
      JSON.stringify({
        oauth: { clients: { [`${fixture.origin}/`]: { clientId: 'org-ci', clientSecret: 'org-secret' } } },
      }),
    );
    const env = { WORKBENCH_MANAGED_POLICY: policy };
    await cliJson(['servers', 'add', 'remote', '--url', fixture.url], { home, env });
    const login = await runCli(['servers', 'login', 'remote', '--client-credentials'], { home, env, input: '' });
    expect(login).toMatchObject({ code: 0 });
    expect(fixture.counts).toMatchObject({ clientCredentials: 1, registrations: 0 });
    expect(fixture.tokenAuthMethods).toEqual(['client_secret_post']);
    expect(await cliJson<{ name: string }[]>(['servers', 'tools', 'remote'], { home, env })).toHaveLength(1);
  }, 60_000);

  it('cross-app access: the ID token from stdin or the environment, never argv; login exchanges it, no browser; a new one replaces it', async () => {
    assertBuilt();
    idp = await startIdentityProvider({ mcpClientId: 'wb-xaa' });
    fixture = await startOAuthServer({
      registration: false,
      preRegisteredClient: { clientId: 'wb-xaa', clientSecret: 'xaa-secret', authMethod: 'client_secret_basic' },
      jwtBearer: { idp },
    });
    home = makeHome();
    const expired = await idp.idToken('ada@example.com', -60);
    const env = { XAA_SECRET: 'xaa-secret', IDP_SECRET: idp.clientSecret };
    const add = [
      'servers',
      'add',
      'remote',
      '--url',
      fixture.url,
      '--oauth-client-id',
      'wb-xaa',
      '--oauth-client-secret-env',
      'XAA_SECRET',
      '--idp-issuer',
      idp.issuer,
      '--idp-client-id',
      idp.clientId,
      '--idp-client-secret-env',
      'IDP_SECRET',
      '--id-token-stdin',
    ];
    expect(await runCli(add, { home, env, input: expired })).toMatchObject({ code: 0 });
    // The ID token expired: the server waits, saying what to do.
    const waiting = await runCli(['servers', 'list', '--status'], { home });
    expect(waiting.stdout).toContain('workbench servers login remote --id-token-stdin');
    expect(fixture.counts.jwtBearer).toBe(0);

    const fresh = await idp.idToken('ada@example.com');
    const login = await runCli(['servers', 'login', 'remote', '--id-token-env', 'ID_TOKEN'], {
      home,
      env: { ID_TOKEN: fresh },
      input: '',
    });
    expect(login).toMatchObject({ code: 0, stdout: 'Signed in to remote through your identity provider.\n' });
    expect(idp.exchanges.at(-1)).toMatchObject({ subjectToken: fresh, clientSecret: idp.clientSecret });
    expect(fixture.counts.authorize).toBe(0);
    const tools = await cliJson<{ name: string }[]>(['servers', 'tools', 'remote'], { home });
    expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
    for (const secret of [expired, fresh, idp.clientSecret, 'xaa-secret']) {
      expect(fs.readFileSync(`${home}/settings.json`, 'utf8')).not.toContain(secret);
      expect((await runCli(['servers', 'logs', 'remote'], { home })).stdout).not.toContain(secret);
    }
    // There is no way to give a token on the command line.
    const onArgv = await runCli(['servers', 'login', 'remote', '--id-token', fresh], { home, input: '' });
    expect(onArgv.code).not.toBe(0);
    expect(onArgv.stderr).toMatch(/unknown option '--id-token'/);
  }, 90_000);
});
