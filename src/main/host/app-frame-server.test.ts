/**
 * Browser mode's app frame origin (docs/user/mcp-apps.md#how-a-view-is-shown): it serves the double-frame proxy alone,
 * framed only by the page's origins, under the Content-Security-Policy of the view's declared domains.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { APP_FRAME_PATH, frameCspOf, startAppFrameServer, type AppFrameServer } from './app-frame-server';

const servers: AppFrameServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<AppFrameServer> {
  const server = await startAppFrameServer({ hostOrigins: () => ['http://127.0.0.1:4790', 'http://localhost:4790'] });
  servers.push(server);
  return server;
}

describe('the app frame origin', () => {
  it('serves the proxy under the declared domains alone, framed only by the page', async () => {
    const server = await start();
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['https://api.example.com'] }));
    const response = await fetch(`${server.origin}${APP_FRAME_PATH}?csp=${csp}`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain('connect-src https://api.example.com');
    expect(policy).toContain('frame-ancestors http://127.0.0.1:4790 http://localhost:4790');
    const body = await response.text();
    expect(body).toContain("inner.setAttribute('sandbox', 'allow-scripts')");
    expect(body).not.toContain('allow-same-origin');
    expect(server.origin).not.toBe('http://127.0.0.1:4790');
  });

  it('gives nothing but the proxy, and only to its own host name', async () => {
    const server = await start();
    expect((await fetch(`${server.origin}/`)).status).toBe(404);
    expect((await fetch(`${server.origin}/index.html`)).status).toBe(404);
    expect((await fetch(`${server.origin}${APP_FRAME_PATH}`, { method: 'POST' })).status).toBe(404);
    const port = new URL(server.origin).port;
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: APP_FRAME_PATH, headers: { Host: `evil.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(421);
  });

  it('cannot be widened through its address: only plain origins reach the policy', () => {
    const sneaky = JSON.stringify({
      connectDomains: ["'unsafe-eval'", 'https://ok.example.com; script-src *', '*', 'https://ok.example.com'],
      resourceDomains: 'https://not-a-list.example.com',
    });
    const policy = frameCspOf(`?csp=${encodeURIComponent(sneaky)}`);
    expect(policy).toContain('connect-src https://ok.example.com;');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy).not.toContain('script-src *');
    expect(frameCspOf('?csp=not-json')).toContain("connect-src 'none'");
    expect(frameCspOf('')).toContain("connect-src 'none'");
  });
});
