import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { appDeclarationsOf, contentSecurityPolicyOf, MCP_APP_MIME_TYPE } from '../../shared/mcp-apps';
import { APP_VIEW_MAX_CHARS, readAppView } from './app-view';

/** A real SDK server over an in-memory pipe, answering resources/read with what each test puts in `contents`. */
async function serverWith(contents: (uri: string) => Record<string, unknown>[]): Promise<Client> {
  const server = new Server({ name: 'views', version: '1.0.0' }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(
    ReadResourceRequestSchema,
    (request) => ({ contents: contents(request.params.uri) }) as never,
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const HTML = '<!doctype html><html><body><p>clock</p></body></html>';

describe("reading a tool's view", () => {
  it('returns the HTML, a hash over it and its declarations, and what the declarations may allow', async () => {
    const client = await serverWith((uri) => [
      {
        uri,
        mimeType: MCP_APP_MIME_TYPE,
        text: HTML,
        _meta: {
          ui: {
            csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] },
            permissions: { clipboardWrite: {} },
            prefersBorder: true,
          },
        },
      },
    ]);
    const view = await readAppView('clock', client, 'ui://clock/view.html', 5000);
    expect(view).toMatchObject({
      serverName: 'clock',
      uri: 'ui://clock/view.html',
      html: HTML,
      permissions: ['clipboardWrite'],
      prefersBorder: true,
      notices: [],
    });
    expect(view.csp).toEqual({
      connectDomains: ['https://api.example.com'],
      resourceDomains: ['https://cdn.example.com'],
      frameDomains: [],
      baseUriDomains: [],
    });
    expect(view.hash).toMatch(/^[0-9a-f]{64}$/);
    // The same HTML with one more declared domain is another view.
    const wider = await readAppView(
      'clock',
      await serverWith((uri) => [
        {
          uri,
          mimeType: MCP_APP_MIME_TYPE,
          text: HTML,
          _meta: { ui: { csp: { connectDomains: ['https://api.example.com', 'https://other.example'] } } },
        },
      ]),
      'ui://clock/view.html',
      5000,
    );
    expect(wider.hash).not.toBe(view.hash);
  });

  it('refuses what is not a view: another URI scheme, another type, no content, too long', async () => {
    const client = await serverWith((uri) => [{ uri, mimeType: 'text/html', text: HTML }]);
    await expect(readAppView('clock', client, 'https://evil.example/view.html', 5000)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(readAppView('clock', client, 'ui://clock/view.html', 5000)).rejects.toThrow(
      /its type is "text\/html", not text\/html;profile=mcp-app/,
    );
    const empty = await serverWith(() => []);
    await expect(readAppView('clock', empty, 'ui://clock/view.html', 5000)).rejects.toThrow(/no content/);
    const huge = await serverWith((uri) => [
      { uri, mimeType: MCP_APP_MIME_TYPE, text: 'x'.repeat(APP_VIEW_MAX_CHARS + 1) },
    ]);
    await expect(readAppView('clock', huge, 'ui://clock/view.html', 5000)).rejects.toThrow(/at most/);
  });

  it('reads a view sent as a base64 blob', async () => {
    const client = await serverWith((uri) => [
      { uri, mimeType: MCP_APP_MIME_TYPE, blob: Buffer.from(HTML).toString('base64') },
    ]);
    expect((await readAppView('clock', client, 'ui://clock/view.html', 5000)).html).toBe(HTML);
  });
});

describe("a view's declarations and its Content-Security-Policy", () => {
  it("is default-src 'none' with nothing reachable when nothing is declared", () => {
    const { csp, permissions, notices } = appDeclarationsOf(undefined);
    expect(permissions).toEqual([]);
    expect(notices).toEqual([]);
    const policy = contentSecurityPolicyOf(csp);
    expect(policy).toMatch(/^default-src 'none'; /);
    expect(policy).toContain("connect-src 'none'");
    expect(policy).toContain("frame-src 'none'");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).not.toMatch(/https?:/);
  });

  it('drops every declared entry that is not a plain origin, so nothing can be smuggled into the policy', () => {
    const hostile = [
      "https://ok.example; script-src 'unsafe-eval'",
      "'unsafe-eval'",
      '*',
      'https://*',
      'https://ok.example/path',
      'javascript:alert(1)',
      'data:',
      'https://ok.example ',
      42,
    ];
    const { csp, permissions, notices } = appDeclarationsOf({
      ui: {
        csp: { connectDomains: [...hostile, 'https://api.example.com'], frameDomains: 'https://x.example' },
        permissions: { camera: {}, usb: {}, microphone: false },
      },
    });
    expect(csp.connectDomains).toEqual(['https://api.example.com']);
    expect(csp.frameDomains).toEqual([]);
    expect(permissions).toEqual(['camera']);
    expect(notices).toHaveLength(hostile.length + 3);
    const policy = contentSecurityPolicyOf(csp);
    expect(policy).not.toContain('unsafe-eval');
    expect(policy.split('; ').filter((directive) => directive.startsWith('script-src'))).toEqual([
      "script-src 'unsafe-inline'",
    ]);
    expect(policy).toContain('connect-src https://api.example.com');
  });
});
