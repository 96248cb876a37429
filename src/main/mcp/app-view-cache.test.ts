/**
 * Views kept per server identity and URI (docs/user/mcp-apps.md#reading-a-view), through the real composition and a
 * real MCP Apps server: a view shown again does not wait for its server; it is read again behind the showing, dropped
 * when the server says the resource changed or leaves `ready`, never shared with another server under the name, and a
 * changed view is still held back by its pin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpAppView } from '../../shared/mcp-apps';
import { createServices, type Services } from '../services';

const VERSIONED = fileURLToPath(new URL('./test-fixtures/versioned-app-server.ts', import.meta.url));
const VIEW = 'ui://versioned/view';

let dir: string;
let services: Services;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function add(name: string, extra: string[] = []): Promise<void> {
  services.mcpServers.add(name, { command: process.execPath, args: [VERSIONED, ...extra], env: { VIEW_VERSION: '1' } });
  services.mcp.start();
  await until(() => services.mcp.tools(name).some((tool) => tool.name === 'show' && tool.available), name);
}

/** The view as a server that changed it would give it (another HTML, so another hash). */
const changed = (view: McpAppView, mark = 'f'): McpAppView => ({
  ...view,
  html: `${view.html}<!-- changed ${mark} -->`,
  hash: mark.repeat(64),
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-app-view-cache-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', managedPolicyFile: null });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await services.mcp.stop();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a view's cache", () => {
  it('shows a view again without waiting for its server, and reads it again behind the showing', async () => {
    await add('Versioned');
    const reads = vi.spyOn(services.mcp, 'appView');
    const first = await services.appViews.show('Versioned', 'show');
    expect(first.pin).toEqual({ status: 'first' });
    expect(reads).toHaveBeenCalledTimes(1);

    // The server does not answer now: the view shows all the same, from the cache.
    reads.mockImplementationOnce(() => new Promise<McpAppView>(() => {}));
    const again = await services.appViews.show('Versioned', 'show');
    expect(again).toMatchObject({ hash: first.hash, pin: { status: 'same' } });
    expect(reads).toHaveBeenCalledTimes(2);
  }, 60_000);

  it('a view changed without a word is noticed by the next showing, and held back by its pin', async () => {
    await add('Versioned');
    const reads = vi.spyOn(services.mcp, 'appView');
    const first = await services.appViews.show('Versioned', 'show');
    // Behind the second showing the server gives a changed view: the second shows the cached one...
    reads.mockImplementationOnce(async () => changed(first));
    expect((await services.appViews.show('Versioned', 'show')).pin).toEqual({ status: 'same' });
    await until(() => reads.mock.calls.length === 2, 'the read behind the showing');
    await new Promise((resolve) => setTimeout(resolve, 10));
    // ...and the third the changed one, held back.
    reads.mockImplementationOnce(async () => changed(first));
    const third = await services.appViews.show('Versioned', 'show');
    expect(third.hash).toBe('f'.repeat(64));
    expect(third.pin?.status).toBe('changed');
  }, 60_000);

  it('is dropped when the server says the resource changed, and when it leaves ready', async () => {
    await add('Versioned');
    const reads = vi.spyOn(services.mcp, 'appView');
    const first = await services.appViews.show('Versioned', 'show');

    services.events.emit('mcp.onDidUpdateResource', { serverName: 'Versioned', uri: VIEW });
    reads.mockImplementationOnce(async () => changed(first));
    // Read from the server before it shows: the changed view, held back.
    expect((await services.appViews.show('Versioned', 'show')).pin?.status).toBe('changed');

    // A restart drops it too: the next showing shows what the server reads then.
    services.mcp.restart('Versioned');
    await until(
      () => services.mcp.list().some((server) => server.name === 'Versioned' && server.status.state === 'ready'),
      'the restart',
    );
    reads.mockImplementationOnce(async () => changed(first, 'e'));
    expect((await services.appViews.show('Versioned', 'show')).hash).toBe('e'.repeat(64));
  }, 60_000);

  it('never gives another server under the same name the earlier one’s view', async () => {
    await add('Versioned');
    const first = await services.appViews.show('Versioned', 'show');
    services.mcpServers.remove('Versioned');
    await add('Versioned', ['--another']);
    const reads = vi.spyOn(services.mcp, 'appView');
    const other = await services.appViews.show('Versioned', 'show');
    expect(reads).toHaveBeenCalledTimes(1);
    expect(other.identity).not.toBe(first.identity);
    expect(other.pin).toEqual({ status: 'first' });
  }, 60_000);
});
