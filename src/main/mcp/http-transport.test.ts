/** Servers over HTTP: Streamable HTTP, the SSE fallback for older servers, and the ways reaching one fails. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost, disposeTestHosts } from './test-fixtures/harness';
import {
  startFailingServer,
  startSseOnlyServer,
  startStreamableHttpServer,
  unusedUrl,
  type TestHttpServer,
} from './test-fixtures/http-servers';

const servers: TestHttpServer[] = [];
async function track(started: Promise<TestHttpServer>): Promise<TestHttpServer> {
  const server = await started;
  servers.push(server);
  return server;
}
afterEach(async () => {
  await disposeTestHosts();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('MCP over HTTP', () => {
  it('connects over Streamable HTTP with the secret header, lists the tools and calls one', async () => {
    const remote = await track(startStreamableHttpServer('s3cret-token'));
    const test = createTestHost({ remote: { url: remote.url, headers: { Authorization: 'Bearer s3cret-token' } } });
    const ready = await test.waitFor('remote', (server) => server.status.toolCount === 1);
    expect(ready.status).toMatchObject({ state: 'ready', transport: 'http', serverInfo: { name: 'http-fixture' } });
    expect(ready.headerKeys).toEqual(['Authorization']);
    expect(test.host.tools('remote')[0]).toMatchObject({
      name: 'shout',
      annotations: { readOnlyHint: true },
      providerName: 'remote__shout',
    });
    const result = await test.host.callTool({ serverName: 'remote', toolName: 'shout', args: { text: 'quiet' } });
    expect(result).toMatchObject({ isError: false, forModel: { text: 'QUIET' } });
    expect(remote.authorizations.length).toBeGreaterThan(0);
    expect(remote.authorizations.every((value) => value === 'Bearer s3cret-token')).toBe(true);
  });

  it('falls back to the SSE transport when the server answers Streamable HTTP with a 4xx', async () => {
    const remote = await track(startSseOnlyServer());
    const test = createTestHost({ legacy: { url: remote.url } });
    const ready = await test.waitFor('legacy', (server) => server.status.toolCount === 1);
    expect(ready.status.transport).toBe('sse');
    expect(
      test.host
        .logs('legacy')
        .lines.map((line) => line.text)
        .join('\n'),
    ).toMatch(/answered HTTP 405 to Streamable HTTP; trying the older SSE transport/);
    expect(await test.host.callTool({ serverName: 'legacy', toolName: 'shout', args: { text: 'old' } })).toMatchObject({
      forModel: { text: 'OLD' },
    });
  });

  it('a server that answers 500 ends in error with the status in the message; the others are unaffected', async () => {
    const failing = await track(startFailingServer());
    const healthy = await track(startStreamableHttpServer());
    const test = createTestHost({ broken: { url: failing.url }, healthy: { url: healthy.url } });
    const broken = await test.waitFor('broken', 'error');
    expect(broken.status.message).toMatch(/HTTP 500/);
    expect(broken.status.message).toMatch(/failed 5 times/);
    expect(test.host.server('healthy').status.state).toBe('ready');
    expect(
      await test.host.callTool({ serverName: 'healthy', toolName: 'shout', args: { text: 'fine' } }),
    ).toMatchObject({ forModel: { text: 'FINE' } });
  });

  it('a URL where nothing listens ends in error saying the connection was refused', async () => {
    const test = createTestHost({ nowhere: { url: await unusedUrl() } });
    const nowhere = await test.waitFor('nowhere', 'error');
    expect(nowhere.status.message).toMatch(/connection was refused/);
    await expect(test.host.callTool({ serverName: 'nowhere', toolName: 'shout', args: {} })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
