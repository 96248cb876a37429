/**
 * Browser mode's app frame origin (docs/user/mcp-apps.md#how-a-view-is-shown): it serves the double-frame proxy alone,
 * framed only by the page's origins, under the Content-Security-Policy of the view's declared domains.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  APP_FRAME_MAX_AGE_SECONDS,
  APP_FRAME_PATH,
  APP_FRAME_REPORT_PATH,
  APP_FRAME_REPORTS_PER_VIEW,
  frameCspOf,
  startAppFrameServer,
  type AppFrameReport,
  type AppFrameServer,
} from './app-frame-server';

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

  it('lets the browser keep the proxy only for a page origin its address names, with its policy', async () => {
    const server = await start();
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['https://api.example.com'] }));
    const address = (host?: string): string =>
      `${server.origin}${APP_FRAME_PATH}?csp=${csp}${host === undefined ? '' : `&host=${encodeURIComponent(host)}`}`;
    const kept = await fetch(address('http://localhost:4790'));
    expect(kept.headers.get('cache-control')).toBe(`private, max-age=${APP_FRAME_MAX_AGE_SECONDS}`);
    expect(kept.headers.get('content-security-policy')).toContain('connect-src https://api.example.com');
    expect(kept.headers.get('content-security-policy')).toContain(
      'frame-ancestors http://127.0.0.1:4790 http://localhost:4790',
    );
    // Without a page origin, or with one that may not frame it, nothing is kept.
    expect((await fetch(address())).headers.get('cache-control')).toBe('no-store');
    expect((await fetch(address('http://127.0.0.1:4791'))).headers.get('cache-control')).toBe('no-store');
    expect((await fetch(address('null'))).headers.get('cache-control')).toBe('no-store');
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

  it("takes the browser's reports of what a view's policy blocked, for that view, and at most so many per view", async () => {
    const reports: AppFrameReport[] = [];
    const server = await startAppFrameServer({
      hostOrigins: () => ['http://127.0.0.1:4790'],
      onReport: (report) => reports.push(report),
    });
    servers.push(server);
    const page = await fetch(`${server.origin}${APP_FRAME_PATH}?csp=%7B%7D&chat=c1&view=call_1`);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain(`report-uri ${APP_FRAME_REPORT_PATH}?chat=c1&view=call_1`);
    const report = (query: string, body: unknown): Promise<Response> =>
      fetch(`${server.origin}${APP_FRAME_REPORT_PATH}?${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/csp-report' },
        body: JSON.stringify(body),
      });
    const blocked = {
      'csp-report': { 'effective-directive': 'connect-src', 'blocked-uri': 'http://127.0.0.1:9/steal' },
    };
    expect((await report('chat=c1&view=call_1', blocked)).status).toBe(204);
    // Not a report, or for no view: nothing is recorded.
    await report('chat=c1&view=call_1', { hello: 'world' });
    await report('chat=c1', blocked);
    for (let index = 0; index < APP_FRAME_REPORTS_PER_VIEW + 5; index++) await report('chat=c1&view=call_2', blocked);
    expect(reports[0]).toEqual({
      chatId: 'c1',
      viewCallId: 'call_1',
      detail: 'connect-src blocked http://127.0.0.1:9/steal',
    });
    expect(reports.filter((item) => item.viewCallId === 'call_1')).toHaveLength(1);
    expect(reports.filter((item) => item.viewCallId === 'call_2')).toHaveLength(APP_FRAME_REPORTS_PER_VIEW);
    // Without a view in its address the page has no report address.
    const bare = await fetch(`${server.origin}${APP_FRAME_PATH}`);
    expect(bare.headers.get('content-security-policy')).not.toContain('report-uri');
  });

  it("records a pool frame's reports for the view its slot was bound to, and drops them for an unbound slot", async () => {
    const reports: AppFrameReport[] = [];
    const bound = new Map([['AAAAAAAAAAAAAAAAAAAAAA', { chatId: 'c1', viewCallId: 'call_1' }]]);
    const server = await startAppFrameServer({
      hostOrigins: () => ['http://127.0.0.1:4790'],
      onReport: (report) => reports.push(report),
      slotView: (slot) => bound.get(slot),
    });
    servers.push(server);
    // The page's address carries the slot alone: the report address is the slot's, whatever else it names.
    const page = await fetch(`${server.origin}${APP_FRAME_PATH}?csp=%7B%7D&slot=AAAAAAAAAAAAAAAAAAAAAA&chat=c9&view=x`);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain(`report-uri ${APP_FRAME_REPORT_PATH}?slot=AAAAAAAAAAAAAAAAAAAAAA`);
    expect(policy).not.toContain('chat=');
    // A slot that is not one gives no report address at all.
    const odd = await fetch(`${server.origin}${APP_FRAME_PATH}?csp=%7B%7D&slot=short&chat=c9&view=x`);
    expect(odd.headers.get('content-security-policy')).not.toContain('report-uri');
    const blocked = {
      'csp-report': { 'effective-directive': 'connect-src', 'blocked-uri': 'http://127.0.0.1:9/steal' },
    };
    const report = (query: string): Promise<Response> =>
      fetch(`${server.origin}${APP_FRAME_REPORT_PATH}?${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/csp-report' },
        body: JSON.stringify(blocked),
      });
    expect((await report('slot=AAAAAAAAAAAAAAAAAAAAAA&chat=c9&view=x')).status).toBe(204);
    // Unbound, malformed, or a slot beside a view's own address: dropped.
    expect((await report('slot=BBBBBBBBBBBBBBBBBBBBBB')).status).toBe(204);
    await report('slot=short&chat=c9&view=x');
    await report('slot=&chat=c9&view=x');
    expect(reports).toEqual([
      { chatId: 'c1', viewCallId: 'call_1', detail: 'connect-src blocked http://127.0.0.1:9/steal' },
    ]);
    // Counted against the view, like a view's own frame's reports.
    for (let index = 0; index < APP_FRAME_REPORTS_PER_VIEW + 5; index++) await report('slot=AAAAAAAAAAAAAAAAAAAAAA');
    expect(reports).toHaveLength(APP_FRAME_REPORTS_PER_VIEW);
  });
});
