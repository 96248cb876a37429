import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer as WebSocketServerClass } from 'ws';
import { readCallFrame, WIRE_PROTOCOL, WIRE_TOKEN_PREFIX, type ServerFrame } from '../../shared/wire';
import type { EventHub } from '../event-hub';
import type { AppFrameSlots } from '../mcp/app-frame-slots';
import { appFrameUrlFor, frameOriginsOf, startAppFrameOrigin } from './app-frame-origin';
import type { AppFrameServer } from './app-frame-server';
import { securityHeaders } from './csp';
import type { Dispatch } from './dispatcher';
import { createStaticFiles } from './static-files';
import { parseJsonOrUndefined } from '../../shared/json';

// Both through require, not an ES import: an ES import of node:http makes Node load its fetch (undici) to fill in the
// module's lazy exports, and one of the CommonJS `ws` makes Node parse its source for export names — ~30 ms of
// browser mode's start together (docs/dev/benchmarks.md, "What keeps them fast").
const { createServer } = process.getBuiltinModule('node:http');
const { WebSocketServer } = createRequire(import.meta.url)('ws') as { WebSocketServer: typeof WebSocketServerClass };

export const WEBSOCKET_PATH = '/ws';
/** Where the page reads the address of the app frame, the other origin MCP Apps views run on (docs/user/mcp-apps.md). */
export const APP_FRAME_INFO_PATH = '/app-frame.json';
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The services behind the contract. */
export interface BrowserBackend {
  dispatch: Dispatch;
  events: EventHub;
  /** The views pool proxy frames were bound to, for their frames' reports (docs/user/mcp-apps.md#in-the-audit-log). */
  frameSlots?: Pick<AppFrameSlots, 'viewOf'>;
}

export interface BrowserServerOptions {
  /**
   * The services, or their start: browser mode listens while its services start, and a call waits for them
   * (docs/dev/benchmarks.md, app-start). One that fails to start answers every call with `unavailable`.
   */
  backend: BrowserBackend | Promise<BrowserBackend>;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks any free port. */
  port: number;
  /** Told each time the page shell was sent. */
  onShellServed?: () => void;
  /** Defaults to a fresh random token; tests pass their own. */
  token?: string;
  log?: (line: string) => void;
}

export interface BrowserServer {
  readonly port: number;
  readonly token: string;
  /** The address to open, with the token in the fragment (never sent to the server, never logged). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Browser mode: serves the renderer on 127.0.0.1 and carries the contract over a WebSocket.
 * A client must present the per-launch token (as a subprotocol) and come from our own origin;
 * the Host header must name loopback, which defeats DNS rebinding.
 */
export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const log = options.log ?? (() => {});
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (protocols) => (protocols.has(WIRE_PROTOCOL) ? WIRE_PROTOCOL : false),
  });
  let port = options.port;
  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = (): Set<string> => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const connectSources = (): string[] => [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`];

  let appFrame: AppFrameServer | null = null;
  // The frame origin under both loopback names (the page may be open under either, and frames nothing else).
  const frameSources = (): string[] => (appFrame ? frameOriginsOf(appFrame.port) : []);

  const files = createStaticFiles(options.rendererDir);
  const server = createServer((request, response) => {
    void serveHttp(request, response);
  });

  async function serveHttp(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const headers = securityHeaders(connectSources(), frameSources());
    if (!allowedHosts().has(request.headers.host ?? '')) {
      response.writeHead(421, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('Misdirected request\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    const urlPath = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (urlPath === APP_FRAME_INFO_PATH && appFrame) {
      const pageHostname = (request.headers.host ?? '').replace(/:\d+$/, '');
      const body = JSON.stringify({ url: appFrameUrlFor(pageHostname, appFrame.port) });
      response
        .writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
        .end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    const file = urlPath === WEBSOCKET_PATH ? null : await files.read(urlPath);
    if (!file) {
      response.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    response.writeHead(200, {
      ...headers,
      'Content-Type': file.contentType,
      'Content-Length': file.body.length,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
    if (file.shell) options.onShellServed?.();
  }

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = checkUpgrade(request);
    if (refusal) {
      log(`refused a WebSocket connection: ${refusal.reason}`);
      socket.end(`HTTP/1.1 ${refusal.status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => attach(client));
  });

  function checkUpgrade(request: http.IncomingMessage): { status: string; reason: string } | null {
    const urlPath = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (urlPath !== WEBSOCKET_PATH) return { status: '404 Not Found', reason: `path ${urlPath}` };
    if (!allowedHosts().has(request.headers.host ?? '')) return { status: '421 Misdirected Request', reason: 'host' };
    if (!allowedOrigins().has(request.headers.origin ?? '')) {
      return { status: '403 Forbidden', reason: `origin ${request.headers.origin ?? '(none)'}` };
    }
    const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((value) => value.trim());
    const presented = offered.find((value) => value.startsWith(WIRE_TOKEN_PREFIX))?.slice(WIRE_TOKEN_PREFIX.length);
    if (!presented || !sameSecret(presented, token))
      return { status: '401 Unauthorized', reason: 'missing or wrong token' };
    if (!offered.includes(WIRE_PROTOCOL)) return { status: '400 Bad Request', reason: 'protocol' };
    return null;
  }

  const clients = new Set<WebSocket>();
  const backend = Promise.resolve(options.backend);
  let closed = false;
  let unsubscribe = (): void => {};
  // Bound only through the contract, so none before the services started: a report then is dropped.
  let frameSlots: BrowserBackend['frameSlots'];
  backend.then(
    ({ events, frameSlots: slots }) => {
      frameSlots = slots;
      if (closed) return;
      unsubscribe = events.subscribe((event, payload) => {
        const frame = JSON.stringify({ type: 'event', event, payload } satisfies ServerFrame);
        for (const client of clients) if (client.readyState === client.OPEN) client.send(frame);
      });
    },
    () => undefined,
  );
  const dispatch: Dispatch = async (method, input) => {
    let started: BrowserBackend;
    try {
      started = await backend;
    } catch {
      return {
        ok: false,
        error: { code: 'unavailable', message: 'AI Workbench could not start its services; see its terminal.' },
      };
    }
    return started.dispatch(method, input);
  };

  function attach(client: WebSocket): void {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', (error) => log(`WebSocket error: ${error.message}`));
    client.on('message', (data, isBinary) => {
      void answer(client, isBinary ? null : data.toString());
    });
  }

  async function answer(client: WebSocket, text: string | null): Promise<void> {
    let frame: ServerFrame;
    const call = text === null ? undefined : readCallFrame(parseJsonOrUndefined(text));
    if (!call) {
      frame = {
        type: 'result',
        id: null,
        result: {
          ok: false,
          error: {
            code: 'invalid_input',
            message: 'A call must be a JSON text frame {type:"call", id, method, input}.',
          },
        },
      };
    } else {
      frame = { type: 'result', id: call.id, result: await dispatch(call.method, call.input) };
    }
    if (client.readyState === client.OPEN) client.send(JSON.stringify(frame));
  }

  appFrame = await startAppFrameOrigin({
    hostOrigins: () => [...allowedOrigins()],
    dispatch,
    frameSlots: () => frameSlots,
    log,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await appFrame?.close();
    throw error;
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    close: async () => {
      closed = true;
      unsubscribe();
      for (const client of clients) client.terminate();
      wss.close();
      await appFrame?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
