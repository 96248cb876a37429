import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Chat } from '../../shared/chat';
import { readServerFrame, WIRE_PROTOCOL, WIRE_TOKEN_PREFIX, type ServerFrame } from '../../shared/wire';
import { createAppFrameSlots } from '../mcp/app-frame-slots';
import { createServices, type Services } from '../services';
import { startBrowserServer, WEBSOCKET_PATH, type BrowserServer } from './browser-server';
import { contentSecurityPolicy } from './csp';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const TOKEN = 'test-token_0123456789';
const INDEX_HTML = '<!doctype html><title>AI Workbench</title><script type="module" src="/assets/app.js"></script>';
const APP_JS = 'console.log("app");';

let dir: string;
let services: Services;
let server: BrowserServer;
let origin: string;
const sockets: WebSocket[] = [];
const logLines: string[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-browser-'));
  // The renderer folder sits next to files it must never serve.
  const rendererDir = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), INDEX_HTML);
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), APP_JS);
  fs.writeFileSync(path.join(dir, 'package.json'), '{"secret": true}');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');

  services = createServices({ dataDir: path.join(dir, 'data'), host: 'browser', version: '0.0.0-test' });
  const dispatch = createDispatcher(createHandlers(services), () => {});
  logLines.length = 0;
  server = await startBrowserServer({
    backend: { dispatch, events: services.events },
    rendererDir,
    port: 0,
    token: TOKEN,
    log: (line) => logLines.push(line),
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await server.close();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: node's http lets us send any path and Host header, which fetch does not. */
function request(options: { path?: string; method?: string; host?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: options.host ?? `127.0.0.1:${server.port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface ConnectOptions {
  token?: string | null;
  origin?: string | null;
  protocols?: string[];
  path?: string;
}

function protocolsFor(token: string | null | undefined): string[] {
  return token === null ? [WIRE_PROTOCOL] : [WIRE_PROTOCOL, `${WIRE_TOKEN_PREFIX}${token ?? TOKEN}`];
}

function socketFor(options: ConnectOptions): WebSocket {
  const wsOptions = options.origin === null ? {} : { origin: options.origin ?? origin };
  const socket = new WebSocket(
    `ws://127.0.0.1:${server.port}${options.path ?? WEBSOCKET_PATH}`,
    options.protocols ?? protocolsFor(options.token),
    wsOptions,
  );
  sockets.push(socket);
  return socket;
}

/** Resolves with the HTTP status that refused the upgrade, or rejects if the connection opened. */
function refusal(options: ConnectOptions): Promise<number> {
  const socket = socketFor(options);
  return new Promise((resolve, reject) => {
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => reject(new Error('the connection was accepted')));
    socket.on('error', () => {});
  });
}

interface Client {
  socket: WebSocket;
  /** The first frame (already received or still to come) that matches; each frame is handed out once. */
  next(match: (frame: ServerFrame) => boolean): Promise<ServerFrame>;
}

/** An open, admitted client. */
async function connect(): Promise<Client> {
  const socket = socketFor({});
  const unclaimed: ServerFrame[] = [];
  const waiters: { match: (frame: ServerFrame) => boolean; resolve: (frame: ServerFrame) => void }[] = [];
  socket.on('message', (data) => {
    const frame = readServerFrame(JSON.parse(data.toString()));
    if (!frame) throw new Error(`not a server frame: ${data.toString()}`);
    const waiter = waiters.find((candidate) => candidate.match(frame));
    if (!waiter) {
      unclaimed.push(frame);
      return;
    }
    waiters.splice(waiters.indexOf(waiter), 1);
    waiter.resolve(frame);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  expect(socket.protocol).toBe(WIRE_PROTOCOL);
  return {
    socket,
    next(match) {
      const [seen] = unclaimed.filter(match);
      if (seen) {
        unclaimed.splice(unclaimed.indexOf(seen), 1);
        return Promise.resolve(seen);
      }
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const resultFor = (id: number | null) => (frame: ServerFrame) => frame.type === 'result' && frame.id === id;

describe('browser server: HTTP', () => {
  it('listens on loopback and gives a URL with the token in the fragment', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.token).toBe(TOKEN);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${TOKEN}`);
  });

  it('makes a fresh random token when none is given', async () => {
    const other = await startBrowserServer({
      backend: { dispatch: async () => ({ ok: true, value: null }), events: services.events },
      rendererDir: dir,
      port: 0,
    });
    try {
      expect(other.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(other.token).not.toBe(TOKEN);
    } finally {
      await other.close();
    }
  });

  it('serves index.html with the CSP naming its own WebSocket, the app frame origin alone to frame, and no caching', async () => {
    const answer = await request({ path: '/' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(INDEX_HTML);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    // The frame origin is named under the other loopback name than the page's: another site, another process.
    const frame = JSON.parse((await request({ path: '/app-frame.json' })).body) as { url: string };
    const frameOrigin = new URL(frame.url).origin;
    expect(frameOrigin).toMatch(/^http:\/\/localhost:\d+$/);
    const framePort = new URL(frameOrigin).port;
    expect(framePort).not.toBe(String(server.port));
    const viaLocalhost = await request({ path: '/app-frame.json', host: `localhost:${server.port}` });
    expect(new URL((JSON.parse(viaLocalhost.body) as { url: string }).url).origin).toBe(
      `http://127.0.0.1:${framePort}`,
    );
    expect(answer.headers['content-security-policy']).toBe(
      contentSecurityPolicy(
        [`ws://127.0.0.1:${server.port}`, `ws://localhost:${server.port}`],
        [`http://127.0.0.1:${framePort}`, `http://localhost:${framePort}`],
      ),
    );
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
  });

  it('serves the page shell for app routes, and also under the localhost name', async () => {
    expect((await request({ path: '/chats/123' })).body).toBe(INDEX_HTML);
    const viaLocalhost = await request({ path: '/', host: `localhost:${server.port}` });
    expect(viaLocalhost.status).toBe(200);
    expect(viaLocalhost.body).toBe(INDEX_HTML);
  });

  it('serves assets with their type, cacheable', async () => {
    const answer = await request({ path: '/assets/app.js' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(APP_JS);
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(answer.headers['cache-control']).toContain('immutable');
    expect(answer.headers['content-security-policy']).toBeDefined();
  });

  it('answers HEAD without a body', async () => {
    const answer = await request({ path: '/', method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(INDEX_HTML));
  });

  it.each([
    '/../package.json',
    '/../../package.json',
    '/%2e%2e/package.json',
    '/%2e%2e%2fpackage.json',
    '/..%2fpackage.json',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/%252e%252e/secret.txt',
    '/..%5c..%5csecret.txt',
    '/assets/app.js%00.html',
    '/%E0%A4%A',
    '/missing.js',
  ])('refuses %s with 404 and never leaks a file outside the renderer folder', async (urlPath) => {
    const answer = await request({ path: urlPath });
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('secret');
    expect(answer.headers['content-security-policy']).toBeDefined();
  });

  it('refuses a Host header that does not name loopback with 421 (DNS rebinding)', async () => {
    for (const host of [
      'evil.com',
      `evil.com:${server.port}`,
      `attacker.example:80`,
      `127.0.0.1.evil.com:${server.port}`,
      `[::1]:${server.port}`,
    ]) {
      const answer = await request({ path: '/', host });
      expect(answer.status).toBe(421);
      expect(answer.body).not.toContain('AI Workbench');
    }
  });

  it('refuses a Host naming loopback on another port', async () => {
    expect((await request({ host: `127.0.0.1:${server.port + 1}` })).status).toBe(421);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('refuses %s with 405', async (method) => {
    const answer = await request({ method, path: '/' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });

  it('does not serve anything at the WebSocket path over plain HTTP', async () => {
    expect((await request({ path: WEBSOCKET_PATH })).status).toBe(404);
  });
});

describe('browser server: the app frame origin', () => {
  it("records a pool frame's CSP report for the view its slot was bound to through the contract, and no other", async () => {
    const calls: [string, unknown][] = [];
    const slots = createAppFrameSlots();
    const other = await startBrowserServer({
      backend: {
        dispatch: async (method, input) => {
          calls.push([String(method), input]);
          return { ok: true, value: {} };
        },
        events: services.events,
        frameSlots: slots,
      },
      rendererDir: dir,
      port: 0,
    });
    try {
      const info = await fetch(`http://127.0.0.1:${other.port}/app-frame.json`);
      const framePort = new URL(((await info.json()) as { url: string }).url).port;
      const frameOrigin = `http://127.0.0.1:${framePort}`;
      const report = (slot: string): Promise<Response> =>
        fetch(`${frameOrigin}/csp-report?slot=${slot}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/csp-report' },
          body: JSON.stringify({
            'csp-report': { 'effective-directive': 'img-src', 'blocked-uri': 'https://x.example' },
          }),
        });
      await report('AAAAAAAAAAAAAAAAAAAAAA');
      slots.bind({ slot: 'AAAAAAAAAAAAAAAAAAAAAA', chatId: 'c1', viewCallId: 'call_1' });
      await report('AAAAAAAAAAAAAAAAAAAAAA');
      await expect.poll(() => calls.length).toBe(1);
      expect(calls).toEqual([
        [
          'apps.recordRefusal',
          { chatId: 'c1', viewCallId: 'call_1', what: 'csp', detail: 'img-src blocked https://x.example' },
        ],
      ]);
    } finally {
      await other.close();
    }
  });
});

describe('browser server: WebSocket admission', () => {
  it('refuses a client without a token: 401', async () => {
    expect(await refusal({ token: null })).toBe(401);
    expect(logLines.join('\n')).toContain('token');
    expect(logLines.join('\n')).not.toContain(TOKEN);
  });

  it('refuses a wrong token, and one of a different length: 401', async () => {
    expect(await refusal({ token: TOKEN.replace(/.$/, 'X') })).toBe(401);
    expect(await refusal({ token: `${TOKEN}extra` })).toBe(401);
    expect(await refusal({ token: '' })).toBe(401);
  });

  it('refuses the right token from another origin: 403', async () => {
    expect(await refusal({ origin: 'http://evil.example' })).toBe(403);
    expect(await refusal({ origin: `https://127.0.0.1:${server.port}` })).toBe(403);
    expect(await refusal({ origin: `http://127.0.0.1:${server.port + 1}` })).toBe(403);
    expect(await refusal({ origin: 'null' })).toBe(403);
  });

  it('refuses the right token without an Origin header: 403', async () => {
    expect(await refusal({ origin: null })).toBe(403);
  });

  it('refuses a client that does not speak the wire protocol: 400', async () => {
    expect(await refusal({ protocols: [`${WIRE_TOKEN_PREFIX}${TOKEN}`] })).toBe(400);
  });

  it('refuses an upgrade on another path: 404', async () => {
    expect(await refusal({ path: '/other' })).toBe(404);
  });

  it('accepts the right token from the localhost origin too', async () => {
    const socket = socketFor({ origin: `http://localhost:${server.port}` });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`refused with ${response.statusCode}`)),
      );
    });
    expect(socket.protocol).toBe(WIRE_PROTOCOL);
  });
});

describe('browser server: the contract over WebSocket', () => {
  it('carries a call and its result', async () => {
    const client = await connect();
    client.socket.send(JSON.stringify({ type: 'call', id: 1, method: 'chat.create', input: { title: 'x' } }));
    const frame = await client.next(resultFor(1));
    expect(frame).toEqual({
      type: 'result',
      id: 1,
      result: { ok: true, value: expect.objectContaining({ title: 'x' }) },
    });
    const chat = (frame as { result: { value: Chat } }).result.value;
    expect(services.chats.get(chat.id)).toEqual(chat);

    client.socket.send(
      JSON.stringify({ type: 'call', id: 2, method: 'chat.rename', input: { id: chat.id, title: '' } }),
    );
    const refused = await client.next(resultFor(2));
    expect(refused).toMatchObject({
      type: 'result',
      id: 2,
      result: { ok: false, error: { code: 'invalid_input', message: expect.stringContaining('title') } },
    });

    client.socket.send(JSON.stringify({ type: 'call', id: 3, method: 'no.such', input: {} }));
    expect(await client.next(resultFor(3))).toMatchObject({ result: { ok: false, error: { code: 'unknown_method' } } });
  });

  it('pushes chat.onDidChange to every connected client', async () => {
    const caller = await connect();
    const watcher = await connect();
    caller.socket.send(JSON.stringify({ type: 'call', id: 7, method: 'chat.create', input: { title: 'shared' } }));
    const result = await caller.next(resultFor(7));
    const chat = (result as { result: { value: Chat } }).result.value;

    const event = await watcher.next((frame) => frame.type === 'event');
    expect(event).toEqual({ type: 'event', event: 'chat.onDidChange', payload: { kind: 'created', chat } });
    expect(await caller.next((frame) => frame.type === 'event')).toEqual(event);

    // A change made by another host (the CLI, say) reaches the clients too.
    services.chats.delete(chat.id);
    expect(await watcher.next((frame) => frame.type === 'event')).toEqual({
      type: 'event',
      event: 'chat.onDidChange',
      payload: { kind: 'deleted', id: chat.id },
    });
  });

  it('answers a malformed frame with id null and invalid_input, and stays usable', async () => {
    const client = await connect();
    for (const bad of ['not json', '{"type":"call"}', '{"type":"call","id":-1,"method":"chat.list"}', '[]', 'null']) {
      client.socket.send(bad);
      expect(await client.next(resultFor(null))).toEqual({
        type: 'result',
        id: null,
        result: { ok: false, error: { code: 'invalid_input', message: expect.stringContaining('JSON') } },
      });
    }
    client.socket.send(Buffer.from('{"type":"call","id":1,"method":"chat.list","input":{}}'), { binary: true });
    expect(await client.next(resultFor(null))).toMatchObject({
      result: { ok: false, error: { code: 'invalid_input' } },
    });

    client.socket.send(JSON.stringify({ type: 'call', id: 9, method: 'chat.list', input: {} }));
    expect(await client.next(resultFor(9))).toEqual({
      type: 'result',
      id: 9,
      result: { ok: true, value: { chats: [] } },
    });
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('closes its clients when it closes', async () => {
    const client = await connect();
    const closed = new Promise<void>((resolve) => client.socket.once('close', () => resolve()));
    await server.close();
    await closed;
    expect(client.socket.readyState).toBe(WebSocket.CLOSED);
    // Restart on a fresh port so afterEach has something to close.
    server = await startBrowserServer({
      backend: { dispatch: async () => ({ ok: true, value: null }), events: services.events },
      rendererDir: dir,
      port: 0,
    });
  });
});

describe('browser server: services still starting (browser mode listens first)', () => {
  async function restartWith(
    backend: Parameters<typeof startBrowserServer>[0]['backend'],
    onShellServed?: () => void,
  ): Promise<void> {
    await server.close();
    server = await startBrowserServer({
      backend,
      ...(onShellServed ? { onShellServed } : {}),
      rendererDir: path.join(dir, 'renderer'),
      port: 0,
      token: TOKEN,
    });
    origin = `http://127.0.0.1:${server.port}`;
  }

  it('serves the page meanwhile, says when it sent the shell, and answers a call once they started', async () => {
    let start: (backend: {
      dispatch: ReturnType<typeof createDispatcher>;
      events: Services['events'];
    }) => void = () => {};
    let shells = 0;
    await restartWith(new Promise((resolve) => (start = resolve)), () => shells++);

    expect((await request({ path: '/' })).body).toBe(INDEX_HTML);
    expect((await request({ path: '/assets/app.js' })).body).toBe(APP_JS);
    expect((await request({ path: '/chats/x' })).body).toBe(INDEX_HTML);
    expect(shells).toBe(2);

    const client = await connect();
    client.socket.send(JSON.stringify({ type: 'call', id: 1, method: 'chat.create', input: { title: 'early' } }));
    const answered = client.next(resultFor(1));
    let settled = false;
    void answered.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);

    start({ dispatch: createDispatcher(createHandlers(services), () => {}), events: services.events });
    expect(await answered).toMatchObject({ result: { ok: true, value: { title: 'early' } } });
    // Its events reach the clients from then on.
    expect(await client.next((frame) => frame.type === 'event')).toMatchObject({
      event: 'chat.onDidChange',
      payload: { kind: 'created' },
    });
  });

  it('answers every call with unavailable when they failed to start', async () => {
    const failed = Promise.reject(new Error('the database is damaged'));
    await restartWith(failed);
    const client = await connect();
    client.socket.send(JSON.stringify({ type: 'call', id: 4, method: 'chat.list', input: {} }));
    expect(await client.next(resultFor(4))).toMatchObject({
      result: { ok: false, error: { code: 'unavailable', message: expect.stringContaining('could not start') } },
    });
  });
});
