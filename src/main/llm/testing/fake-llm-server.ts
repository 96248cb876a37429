/**
 * A scripted HTTP server on 127.0.0.1 speaking the three real wire formats — OpenAI chat completions, Anthropic
 * messages, Gemini generateContent — as JSON and as SSE streams, for tests that drive the official SDKs.
 * The Nth generation request of any format gets the Nth scripted turn; every request is recorded with its body,
 * so a test can assert exactly what the model was sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicWire } from './anthropic-wire';
import type { FakeModel, FakeTurn, WireFormat, WireRenderer, WireResponse } from './fake-turns';
import { geminiWire } from './gemini-wire';
import { openAiWire } from './openai-wire';

export type { FakeModel, FakeToolCall, FakeTurn, WireFormat } from './fake-turns';

const RENDERERS: Record<WireFormat, WireRenderer> = {
  openai: openAiWire,
  anthropic: anthropicWire,
  gemini: geminiWire,
};

export interface RecordedRequest {
  format: WireFormat;
  kind: 'generate' | 'models';
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** The key the client sent, from whichever header or parameter its format uses. */
  apiKey: string | undefined;
  /** The parsed JSON body (undefined for GET). */
  body: unknown;
  /** The model named in the body or, for Gemini, in the path. */
  model: string | undefined;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** Settles when the connection closes; true when the client closed it before the response was complete. */
  closed: Promise<boolean>;
}

export interface FakeLlmServerOptions {
  /** When set, requests with any other key get the format's bad-key error. */
  apiKey?: string;
  models?: FakeModel[];
  /**
   * Answers each generation request from what it holds instead of from the script, for tests whose model must
   * react to the conversation (a stop or a restart would leave a fixed script out of step). Undefined falls back
   * to the script.
   */
  respond?: (request: RecordedRequest) => FakeTurn | undefined;
}

export interface FakeLlmServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** The base URL each SDK takes: OpenAI's includes `/v1`; Anthropic's and Gemini's are the origin. */
  baseURL(format: WireFormat): string;
  /** Appends turns to the script. */
  script(...turns: FakeTurn[]): void;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** The generation requests so far. */
  generations(): RecordedRequest[];
  close(): Promise<void>;
}

const DEFAULT_MODELS: FakeModel[] = [
  { id: 'fake-large', label: 'Fake Large', contextWindow: 200_000, maxOutputTokens: 32_000 },
  { id: 'fake-small', label: 'Fake Small', contextWindow: 128_000, maxOutputTokens: 8_192 },
];

interface Route {
  format: WireFormat;
  kind: 'generate' | 'models';
  model?: string;
  stream?: boolean;
}

function route(method: string, url: URL, headers: http.IncomingHttpHeaders): Route | undefined {
  const path = url.pathname;
  if (method === 'POST' && path === '/v1/chat/completions') return { format: 'openai', kind: 'generate' };
  if (method === 'POST' && path === '/v1/messages') return { format: 'anthropic', kind: 'generate' };
  if (method === 'GET' && path === '/v1/models')
    return { format: headers['anthropic-version'] ? 'anthropic' : 'openai', kind: 'models' };
  if (method === 'GET' && path === '/v1beta/models') return { format: 'gemini', kind: 'models' };
  const gemini = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (method === 'POST' && gemini) {
    return {
      format: 'gemini',
      kind: 'generate',
      model: decodeURIComponent(gemini[1] as string),
      stream: gemini[2] === 'streamGenerateContent',
    };
  }
  return undefined;
}

function apiKeyOf(request: http.IncomingMessage, url: URL): string | undefined {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return bearer ?? header('x-api-key') ?? header('x-goog-api-key') ?? url.searchParams.get('key') ?? undefined;
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function send(response: http.ServerResponse, wire: WireResponse): void {
  response.writeHead(wire.status, wire.headers);
  response.end(wire.body);
}

export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const turns: FakeTurn[] = [];
  const requests: RecordedRequest[] = [];
  const models = options.models ?? DEFAULT_MODELS;

  const server = http.createServer({ noDelay: true }, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const found = route(request.method ?? 'GET', url, request.headers);
    if (!found) {
      send(response, {
        status: 404,
        headers: { 'content-type': 'text/plain' },
        body: `fake LLM server: no route for ${request.method} ${url.pathname}`,
      });
      return;
    }
    void handle(found, url, request, response);
  });

  async function handle(
    found: Route,
    url: URL,
    request: http.IncomingMessage,
    response: http.ServerResponse,
  ): Promise<void> {
    const body = await readBody(request);
    const bodyRecord = (body ?? {}) as Record<string, unknown>;
    const closed = new Promise<boolean>((resolve) => response.once('close', () => resolve(!response.writableFinished)));
    const model = found.model ?? (typeof bodyRecord['model'] === 'string' ? bodyRecord['model'] : undefined);
    const stream = found.stream ?? bodyRecord['stream'] === true;
    const apiKey = apiKeyOf(request, url);
    requests.push({
      format: found.format,
      kind: found.kind,
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      apiKey,
      body,
      model,
      stream,
      closed,
    });
    const renderer = RENDERERS[found.format];
    const modelName = model ?? 'unknown-model';
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      send(response, renderer.error('bad_key', { model: modelName }));
      return;
    }
    if (found.kind === 'models') {
      send(response, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(renderer.models(models)),
      });
      return;
    }
    const turn = options.respond?.(requests.at(-1) as RecordedRequest) ?? turns.shift();
    if (!turn) {
      send(response, {
        status: 500,
        headers: { 'content-type': 'text/plain' },
        body: `fake LLM server: no scripted turn for request ${requests.length}`,
      });
      return;
    }
    if (turn.kind === 'raw') {
      send(response, { status: turn.status, headers: turn.headers ?? {}, body: turn.body });
      return;
    }
    if (turn.kind === 'error') {
      send(
        response,
        renderer.error(turn.error, {
          model: modelName,
          ...(turn.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: turn.retryAfterSeconds }),
        }),
      );
      return;
    }
    if (!stream) {
      send(response, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(renderer.json(turn, modelName)),
      });
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const events = renderer.streamEvents(turn, modelName);
    for (const [index, event] of events.entries()) {
      if (turn.dropAfter === index) {
        response.socket?.destroy();
        return;
      }
      if (turn.holdOpenAfter === index) return;
      if (turn.pauseAfter?.events === index) await turn.pauseAfter.until;
      if (turn.errorAfter?.events === index) {
        response.end(renderer.streamError(turn.errorAfter.error));
        return;
      }
      // Each event reaches the socket before the next step, so that a drop or a hold happens after what was sent.
      await new Promise<void>((resolve) => response.write(event, () => resolve()));
    }
    response.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseURL: (format) => (format === 'openai' ? `${url}/v1` : url),
    script: (...more) => void turns.push(...more),
    requests,
    generations: () => requests.filter((request) => request.kind === 'generate'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on which nothing listens: a port that was just free. */
export async function refusedURL(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
