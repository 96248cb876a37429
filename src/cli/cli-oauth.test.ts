/** `workbench servers login NAME` against the SDK-built OAuth fixture: it prints the sign-in address (no desktop here), waits for the browser, and stores the tokens. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startOAuthServer, type OAuthFixture } from '../main/mcp/test-fixtures/oauth-server';
import { assertBuilt, CLI_ENTRY, cliEnv, cliJson, makeHome, ROOT } from './testing/cli-process';

let fixture: OAuthFixture | undefined;
let home: string | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('workbench servers login', () => {
  it('prints the sign-in page, waits for the browser to come back, and is signed in', async () => {
    assertBuilt();
    fixture = await startOAuthServer();
    home = makeHome();
    await cliJson(['servers', 'add', 'remote', '--url', fixture.url], { home });
    const child = spawn(process.execPath, [CLI_ENTRY, 'servers', 'login', 'remote'], { cwd: ROOT, env: cliEnv(home, { DISPLAY: undefined, WAYLAND_DISPLAY: undefined }), stdio: ['ignore', 'pipe', 'pipe'] });
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
});
