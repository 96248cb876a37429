/**
 * The probe's answer, remembered per server identity (docs/dev/protocol-2026.md, "The probe's answer, remembered"):
 * a restarted 2025-11-25 server is not asked again (stdio: stdio-probe.test.ts); a session that ends by itself forgets the answer, so the next start asks again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost, disposeTestHosts, fixtureServer, type TestHost } from './test-fixtures/harness';
import { startStreamableHttpServer } from './test-fixtures/http-servers';
import { startModernServer } from './test-fixtures/modern-server';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await disposeTestHosts();
  for (const close of closers.splice(0)) await close();
});

function logText(test: TestHost, name: string): string {
  return test.host
    .logs(name)
    .lines.map((line) => line.text)
    .join('\n');
}

const REMEMBERED = 'The server spoke 2025-11-25 at its last start: it is not asked server/discover again.';

describe("the probe's answer, remembered", () => {
  it('over HTTP: a restarted 2025-11-25 server is not probed again; a 2026-07-28 one behind OAuth is (per sign-in)', async () => {
    const modern = await startModernServer();
    const legacy = await startStreamableHttpServer();
    closers.push(
      () => modern.close(),
      () => legacy.close(),
    );
    const test = createTestHost({
      modern: { url: modern.url, type: 'http' },
      legacy: { url: legacy.url, type: 'http' },
    });
    await test.waitFor('modern', (server) => server.status.toolCount > 0);
    await test.waitFor('legacy', (server) => server.status.toolCount > 0);
    expect(logText(test, 'legacy')).not.toContain(REMEMBERED);
    await test.host.restart('modern');
    await test.host.restart('legacy');
    expect((await test.waitFor('modern', (server) => server.status.toolCount > 0)).status.protocolVersion).toBe(
      '2026-07-28',
    );
    expect((await test.waitFor('legacy', (server) => server.status.toolCount > 0)).status.protocolVersion).toBe(
      '2025-11-25',
    );
    // An HTTP server without its own Authorization header has the OAuth provider: its discover result is not reused.
    expect(modern.methods.filter((method) => method === 'server/discover')).toHaveLength(2);
    // Each start sent the 1.x initialize beside the probe (a first start pays no extra round trip); the 2026-07-28
    // answer won, and that session was ended (connect.test.ts).
    expect(modern.methods.filter((method) => method === 'initialize').length).toBeLessThanOrEqual(2);
    expect(logText(test, 'legacy')).toContain(REMEMBERED);
    const echo = await test.host.callTool({ serverName: 'modern', toolName: 'echo', args: { text: 'again' } });
    expect(echo.forModel.text).toBe('again');
  });

  it('a server that crashed is asked again at its next start', async () => {
    const test = createTestHost(
      { picky: fixtureServer({ FIXTURE_PROBE: 'exit-on-probe' }) },
      { options: { restart: { initialDelayMs: 10, maxDelayMs: 50, maxCrashes: 5, windowMs: 60_000 } } },
    );
    await test.waitFor('picky', (server) => server.status.toolCount > 0);
    await test.host.callTool({ serverName: 'picky', toolName: 'exit', args: { code: 3 } }).catch(() => undefined);
    await test.waitFor(
      'picky',
      (server) => server.status.state === 'ready' && logText(test, 'picky').split('starting it again').length === 3,
    );
    expect(logText(test, 'picky')).not.toContain(REMEMBERED);
  });
});
