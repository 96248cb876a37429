/**
 * Pinned views (docs/user/mcp-apps.md#pinned-views), through the real composition and a real MCP Apps server whose view
 * changes with its environment (not part of what it runs): the first view is pinned as it is shown, a changed one is
 * held back with what changed until the person accepts it, and another server under the same name has no pin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../services';

const VERSIONED = fileURLToPath(new URL('./test-fixtures/versioned-app-server.ts', import.meta.url));

let dir: string;
let services: Services;

async function ready(name: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (services.mcp.tools(name).some((tool) => tool.name === 'show' && tool.available)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} never became ready`);
}

/** The versioned server under `name`, with its view's version and declared domain; `extra` makes it another server. */
async function add(name: string, env: Record<string, string>, extra: string[] = []): Promise<void> {
  services.mcpServers.add(name, { command: process.execPath, args: [VERSIONED, ...extra], env });
  services.mcp.start();
  await ready(name);
}

async function remove(name: string): Promise<void> {
  services.mcpServers.remove(name);
  for (let attempt = 0; attempt < 200 && services.mcp.list().some((server) => server.name === name); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-app-pins-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', managedPolicyFile: null });
});

afterEach(async () => {
  await services.mcp.stop();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a view pinned per server identity', () => {
  it('is pinned when first shown; a changed one is held back until accepted, and the acceptance is recorded', async () => {
    await add('Versioned', { VIEW_VERSION: '1' });
    const first = await services.appViews.show('Versioned', 'show');
    expect(first.pin).toEqual({ status: 'first' });
    expect(first.html).toContain('version 1');
    expect((await services.appViews.show('Versioned', 'show')).pin).toEqual({ status: 'same' });

    // The same server (same command and arguments) now shows another view, which declares a domain.
    await remove('Versioned');
    await add('Versioned', { VIEW_VERSION: '2', VIEW_CONNECT: 'https://api.example.com' });
    const changed = await services.appViews.show('Versioned', 'show');
    expect(changed.pin?.status).toBe('changed');
    expect(changed.html).toBe('');
    expect(changed.hash).not.toBe(first.hash);
    expect(changed.pin?.changes).toEqual([
      expect.stringMatching(/^its HTML changed: \d+ B → \d+ B$/),
      'connectDomains added: https://api.example.com',
    ]);

    // Accepted by the hash the person saw; another hash (the view changed again meanwhile) is refused.
    await expect(services.appViews.accept('Versioned', 'show', first.hash)).rejects.toMatchObject({ code: 'conflict' });
    const accepted = await services.appViews.accept('Versioned', 'show', changed.hash);
    expect(accepted).toMatchObject({ hash: changed.hash, pin: { status: 'same' } });
    expect(accepted.html).toContain('version 2');
    expect((await services.appViews.show('Versioned', 'show')).pin).toEqual({ status: 'same' });
    const rows = services.audit.query({ kind: 'policy', limit: 50 }).entries;
    expect(
      rows.some((row) => row.decidedBy?.includes('Accepted the changed view ui://versioned/view of Versioned')),
    ).toBe(true);
  }, 90_000);

  it('another server under the same name never inherits the pin', async () => {
    await add('Versioned', { VIEW_VERSION: '1' });
    expect((await services.appViews.show('Versioned', 'show')).pin).toEqual({ status: 'first' });
    await remove('Versioned');
    // Another program (other arguments) under the freed name, with another view: new to this identity, not "changed".
    await add('Versioned', { VIEW_VERSION: '3' }, ['--other']);
    const view = await services.appViews.show('Versioned', 'show');
    expect(view.pin).toEqual({ status: 'first' });
    expect(view.html).toContain('version 3');
    // And the first server, back under that name, still has its own pin: its changed view is held back.
    await remove('Versioned');
    await add('Versioned', { VIEW_VERSION: '3' });
    expect((await services.appViews.show('Versioned', 'show')).pin?.status).toBe('changed');
  }, 90_000);
});
