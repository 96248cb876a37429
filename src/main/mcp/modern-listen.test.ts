/**
 * A 2026-07-28 server's notifications through `subscriptions/listen` (docs/dev/protocol-2026.md, "Notifications"):
 * the host hears its tool-list changes and the updates of the resources it subscribed to as it hears a 2025-11-25
 * server's, against a server built from the SDK v2's server packages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost, disposeTestHosts, eventually } from './test-fixtures/harness';
import { startModernServer, type ModernFixture } from './test-fixtures/modern-server';

let fixture: ModernFixture | undefined;
afterEach(async () => {
  await disposeTestHosts();
  await fixture?.close();
  fixture = undefined;
});

const count = (methods: string[], method: string): number => methods.filter((item) => item === method).length;

describe('subscriptions/listen on a 2026-07-28 server', () => {
  it("a tool-list change on the stream makes the host list the server's tools again", async () => {
    const modern = (fixture = await startModernServer());
    const test = createTestHost({ modern: { url: modern.url, type: 'http' } });
    expect((await test.waitFor('modern', (server) => server.status.toolCount > 0)).status.protocolVersion).toBe(
      '2026-07-28',
    );
    await eventually(() => modern.methods.includes('subscriptions/listen'), 'the listen stream opens');
    const listed = count(modern.methods, 'tools/list');
    modern.notify.toolsChanged();
    await eventually(() => count(modern.methods, 'tools/list') > listed, 'the tools are listed again');
  });

  it('a subscribed resource is updated through the stream as mcp.onDidUpdateResource; unsubscribing takes it out', async () => {
    const modern = (fixture = await startModernServer());
    const test = createTestHost({ modern: { url: modern.url, type: 'http' } });
    await test.waitFor('modern', (server) => server.status.toolCount > 0);
    const updates: string[] = [];
    test.events.subscribe((event, payload) => {
      if (event === 'mcp.onDidUpdateResource') updates.push((payload as { uri: string }).uri);
    });
    expect(await test.host.subscribeResource('modern', 'note://one', true)).toEqual({ subscribed: true });
    expect(modern.methods).not.toContain('resources/subscribe');
    modern.notify.resourceUpdated('note://one');
    await eventually(() => updates.includes('note://one'), 'the update of note://one');
    expect(await test.host.subscribeResource('modern', 'note://one', false)).toEqual({ subscribed: false });
    expect(await test.host.subscribeResource('modern', 'note://two', true)).toEqual({ subscribed: true });
    // In this order: were note://one still subscribed, its update would arrive before note://two's.
    modern.notify.resourceUpdated('note://one');
    modern.notify.resourceUpdated('note://two');
    await eventually(() => updates.includes('note://two'), 'the update of note://two');
    expect(updates).toEqual(['note://one', 'note://two']);
  });
});
