// The MCP revision each server speaks, as the CLI shows it (docs/user/mcp-servers.md#protocol-revisions): the built CLI
// as a child process against a 2026-07-28 server (the SDK v2's server packages) and a 2025-11-25 one (the 1.x SDK).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerView } from '../shared/mcp';
import { startStreamableHttpServer, type TestHttpServer } from '../main/mcp/test-fixtures/http-servers';
import { startModernServer, type ModernFixture } from '../main/mcp/test-fixtures/modern-server';
import { cliJson, makeHome, runCli } from './testing/cli-process';

let home: string;
let modern: ModernFixture;
let legacy: TestHttpServer;
beforeAll(async () => {
  home = makeHome();
  modern = await startModernServer();
  legacy = await startStreamableHttpServer();
});
afterAll(async () => {
  await modern.close();
  await legacy.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('workbench servers: the protocol revision', { timeout: 300_000 }, () => {
  it('list --status and show name the revision each server speaks', async () => {
    for (const [name, url] of [
      ['modern', modern.url],
      ['legacy', legacy.url],
    ] as const) {
      expect((await runCli(['servers', 'add', name, '--url', url], { home })).code).toBe(0);
    }
    const list = await runCli(['servers', 'list', '--status'], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/PROTOCOL/);
    expect(list.stdout).toMatch(/modern\s.*ready \(4 tools\)\s+2026-07-28\s/);
    expect(list.stdout).toMatch(/legacy\s.*ready \(1 tool\)\s+2025-11-25\s/);

    const show = await runCli(['servers', 'show', 'modern'], { home });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/Protocol\s+MCP 2026-07-28/);
    expect(show.stdout).toMatch(/Reports as\s+modern-fixture 2\.0\.0/);
    const shown = await cliJson<McpServerView>(['servers', 'show', 'legacy'], { home });
    expect(shown.status).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25', transport: 'http' });

    const missing = await runCli(['servers', 'show', 'nope'], { home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('There is no MCP server "nope"');
  });
});
