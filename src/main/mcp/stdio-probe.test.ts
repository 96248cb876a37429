/**
 * Every stdio server is asked `server/discover` first, on the process the host started (docs/dev/protocol-2026.md,
 * "stdio"): a 2026-07-28 server stays on the SDK v2 client, any other is handed to the 1.x client on the same process,
 * and a server that exits when asked is started once more. Real processes: a 2026-07-28 server built from the SDK v2's
 * server packages, server-everything from node_modules, and the misbehaving fixture.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost, disposeTestHosts, fixtureServer, type TestHost } from './test-fixtures/harness';

afterEach(disposeTestHosts);

const MODERN_STDIO_SERVER = fileURLToPath(new URL('./test-fixtures/modern-stdio-server.ts', import.meta.url));

function logText(test: TestHost, name: string): string {
  return test.host
    .logs(name)
    .lines.map((line) => line.text)
    .join('\n');
}

/** How many processes of the fixture started: each writes one "serving (pid N)" line. */
function starts(test: TestHost, name: string): number {
  return logText(test, name).match(/: serving \(pid \d+\)/g)?.length ?? 0;
}

describe('a stdio server asked server/discover first', () => {
  it('a 2026-07-28 server stays on the v2 client: one process, its tools listed and called', async () => {
    const test = createTestHost({ modern: { command: process.execPath, args: [MODERN_STDIO_SERVER] } });
    const modern = await test.waitFor('modern', (server) => server.status.toolCount === 2);
    expect(modern.status.protocolVersion).toBe('2026-07-28');
    expect(starts(test, 'modern')).toBe(1);
    expect(logText(test, 'modern')).toMatch(
      /Connected to modern-stdio-fixture 2\.0\.0 \(pid \d+\), protocol 2026-07-28/,
    );
    const echo = await test.host.callTool({ serverName: 'modern', toolName: 'echo', args: { text: 'over stdio' } });
    expect(echo.forModel.text).toBe('over stdio');
    expect(modern.status.pid).toBe(test.host.server('modern').status.pid);
  });

  it('server-everything (2025-11-25) answers the probe with an error and is handed over on the same process', async () => {
    const test = createTestHost({ everything: { package: '@modelcontextprotocol/server-everything' } });
    const everything = await test.waitFor('everything', (server) => server.status.toolCount > 0);
    expect(everything.status.protocolVersion).toBe('2025-11-25');
    const log = logText(test, 'everything');
    expect(log).toMatch(/does not speak 2026-07-28 \(Version negotiation failed: the server did not offer pinned/);
    expect(log).not.toContain('starting it again');
    const echo = await test.host.callTool({ serverName: 'everything', toolName: 'echo', args: { message: 'hi' } });
    expect(echo.forModel.text).toContain('hi');
  });

  it('a server that exits when asked is started once more and speaks 2025-11-25; the exit is in its log', async () => {
    const test = createTestHost({ picky: fixtureServer({ FIXTURE_PROBE: 'exit-on-probe' }) });
    const picky = await test.waitFor('picky', (server) => server.status.toolCount > 0);
    expect(picky.status.protocolVersion).toBe('2025-11-25');
    expect(logText(test, 'picky')).toContain(
      'The server exited with code 4 when it was asked server/discover; starting it again to speak 2025-11-25.',
    );
    expect(starts(test, 'picky')).toBe(2);
    const echo = await test.host.callTool({ serverName: 'picky', toolName: 'echo', args: { text: 'second life' } });
    expect(echo.forModel.text).toBe('second life');
  });

  it('a server that answers garbage to the probe is handed over on the same process; the garbage is in its log', async () => {
    const test = createTestHost({ noisy: fixtureServer({ FIXTURE_PROBE: 'garbage' }) });
    const noisy = await test.waitFor('noisy', (server) => server.status.toolCount > 0);
    expect(noisy.status.protocolVersion).toBe('2025-11-25');
    const log = logText(test, 'noisy');
    expect(log).toContain('Ignored a line on stdout that is not a JSON-RPC message: <html>surprise</html>');
    expect(log).toContain('The server does not speak 2026-07-28');
    expect(starts(test, 'noisy')).toBe(1);
  });

  it('a server that never answers the probe costs the probe timeout once, then speaks 2025-11-25 on the same process', async () => {
    const test = createTestHost(
      { mute: fixtureServer({ FIXTURE_PROBE: 'silent' }) },
      { options: { initializeTimeoutMs: 1500 } },
    );
    const mute = await test.waitFor('mute', (server) => server.status.toolCount > 0, 20_000);
    expect(mute.status.protocolVersion).toBe('2025-11-25');
    expect(logText(test, 'mute')).toContain(
      'The server does not speak 2026-07-28 (no answer to server/discover within 1500 ms); speaking 2025-11-25 to it.',
    );
    expect(starts(test, 'mute')).toBe(1);
    const echo = await test.host.callTool({ serverName: 'mute', toolName: 'echo', args: { text: 'late' } });
    expect(echo.forModel.text).toBe('late');
  });

  it("the probe's answer is remembered: a restart of a 2026-07-28 server sends no server/discover, a 2025 one none either", async () => {
    const test = createTestHost({
      modern: { command: process.execPath, args: [MODERN_STDIO_SERVER] },
      picky: fixtureServer({ FIXTURE_PROBE: 'exit-on-probe' }),
    });
    await test.waitFor('modern', (server) => server.status.toolCount === 2);
    await test.waitFor('picky', (server) => server.status.toolCount > 0);
    await test.host.restart('modern');
    await test.host.restart('picky');
    const modern = await test.waitFor('modern', (server) => server.status.toolCount === 2);
    const picky = await test.waitFor('picky', (server) => server.status.toolCount > 0);
    expect(modern.status.protocolVersion).toBe('2026-07-28');
    expect(picky.status.protocolVersion).toBe('2025-11-25');
    // Two processes of each: the modern one was asked once, the picky one exited once and was not asked again.
    expect(starts(test, 'modern')).toBe(2);
    expect(logText(test, 'modern').match(/received server\/discover/g)).toHaveLength(1);
    expect(logText(test, 'modern')).not.toContain('received initialize');
    expect(starts(test, 'picky')).toBe(3);
    expect(logText(test, 'picky')).toContain(
      'The server spoke 2025-11-25 at its last start: it is not asked server/discover again.',
    );
    const echo = await test.host.callTool({ serverName: 'modern', toolName: 'echo', args: { text: 'remembered' } });
    expect(echo.forModel.text).toBe('remembered');
  });

  it('a server that exits at every start fails with how it exited, after one second start at most', async () => {
    const test = createTestHost(
      { broken: fixtureServer({ FIXTURE_EXIT_AT_START: '7' }) },
      { options: { restart: { maxCrashes: 1, initialDelayMs: 10 } } },
    );
    const broken = await test.waitFor('broken', 'error');
    expect(broken.status.message).toMatch(/^The server exited with code 7 before it was ready/);
  });
});
