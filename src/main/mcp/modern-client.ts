import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  UnauthorizedError as UnauthorizedErrorV2,
  type DiscoverResult,
  type FetchLike as FetchLikeV2,
  type OAuthClientProvider as OAuthClientProviderV2,
  type PriorDiscovery,
  type RequestOptions,
  type Transport as TransportV2,
} from '@modelcontextprotocol/client';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type CreateMessageRequestParams,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpLogLevel } from '../../shared/mcp';
import { APP_NAME } from '../../shared/app-name';
import { CallAbort } from './call-abort';
import type { CallLegOptions, McpSession } from './mcp-session';
import { createModernListener, type ModernListener } from './modern-listen';
import { createModernTasks } from './modern-tasks';
import { createRawRequests, type RawRequests } from './raw-requests';
import { TASKS_EXTENSION, type ModernTasks } from './tool-tasks';
import type { BoundServerRequests, ServerRequestOrigin } from './server-request-routing';

/**
 * The SDK v2 client (`@modelcontextprotocol/client`) as AI Workbench sets it up for a server that may speak the
 * 2026-07-28 revision (docs/dev/protocol-2026.md). On 2026-07-28 a server asks for input with an `input_required`
 * result; the SDK answers it through the handlers below and retries the request, so sampling, elicitation and roots go
 * to the same `BoundServerRequests` (the exchange coordinator, under approval) as a 2025-11-25 server's requests
 * (docs/user/server-requests.md). connect.ts uses it for every HTTP server first, `pinned`: a server that does not
 * answer `server/discover` with 2026-07-28 is then reached through the 1.x client as before.
 */
export interface ModernConnectOptions {
  clientVersion: string;
  timeoutMs: number;
  requestInit?: RequestInit | undefined;
  /** Who answers the server's sampling and elicitation requests; without it, neither is advertised. */
  serverRequests?: BoundServerRequests | undefined;
  /** The folders the server may work in, as `file://` URIs (MCP roots). */
  roots?: (() => { uri: string; name?: string }[]) | undefined;
  /** Only 2026-07-28: a server that does not offer it fails with `NotModernError`, nothing else is sent to it. */
  pinned?: boolean | undefined;
  /** How long `server/discover` may take; `timeoutMs` when not given. */
  probeTimeoutMs?: number | undefined;
  /** What the server answered `server/discover` last time (probe-verdicts.ts): a modern one connects with no round trip. */
  prior?: PriorDiscovery | undefined;
  /** OAuth (src/main/mcp/oauth): the provider and the fetch that guards and refreshes, as for the 1.x transport. */
  oauth?: { provider: OAuthClientProvider; fetch: FetchLike } | undefined;
  /** What the host noticed about the session (a listen stream dropped…), for the server's log. */
  onNotice?: ((text: string) => void) | undefined;
  /** The server's MCP log messages. */
  onLog?: ((text: string, detail: { level: McpLogLevel; logger?: string }) => void) | undefined;
  onToolsChanged?: (() => void) | undefined;
  onResourceUpdated?: ((uri: string) => void) | undefined;
  /** Ends a connect still in progress (the server was stopped meanwhile). */
  signal?: AbortSignal | undefined;
}

export interface ModernConnection {
  client: Client;
  transport: TransportV2;
  /** The door of each tool call in flight, by its arguments object (see `modernSession`). */
  legs: WeakMap<object, () => void>;
  /** `modern`: 2026-07-28 (server/discover); `legacy`: the server answered only the 2025-11-25 handshake. */
  era: 'modern' | 'legacy';
  /** The negotiated protocol revision. */
  protocolVersion: string;
  /** The server's answer to `server/discover` (2026-07-28 only), for the next start (probe-verdicts.ts). */
  discover: DiscoverResult | undefined;
  /** 2026-07-28: the session's `subscriptions/listen` stream (modern-listen.ts). */
  listener: ModernListener | undefined;
  /** 2026-07-28: the host's own requests on the transport, for the tasks extension (raw-requests.ts, modern-tasks.ts). */
  tasks: ModernTasks | undefined;
  close(): Promise<void>;
}

/** The server did not offer 2026-07-28 through `server/discover` (a pinned connect): reach it the 2025-11-25 way. */
export class NotModernError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'NotModernError';
  }
}

export function newModernClient(options: ModernConnectOptions): Client {
  const { clientVersion, serverRequests, roots } = options;
  const client = new Client(
    { name: APP_NAME, version: clientVersion },
    {
      versionNegotiation: {
        mode: options.pinned ? { pin: '2026-07-28' } : 'auto',
        ...(options.probeTimeoutMs ? { probe: { timeoutMs: options.probeTimeoutMs } } : {}),
      },
      capabilities: {
        ...(roots ? { roots: { listChanged: true } } : {}),
        // As registerServerRequests advertises them for a 2025-11-25 server.
        ...(serverRequests ? { sampling: {}, elicitation: { form: { applyDefaults: true }, url: {} } } : {}),
      },
    },
  );
  if (serverRequests) {
    const origin = (signal: AbortSignal): ServerRequestOrigin => ({
      serverName: serverRequests.serverName,
      chatId: serverRequests.chatOf(),
      signal,
    });
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      serverRequests.handler.sample(origin(ctx.mcpReq.signal), request.params as CreateMessageRequestParams),
    );
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      serverRequests.handler.elicit(
        origin(ctx.mcpReq.signal),
        request.params as ElicitRequestFormParams | ElicitRequestURLParams,
      ),
    );
  }
  if (roots) client.setRequestHandler('roots/list', () => ({ roots: roots() }));
  const { onLog, onToolsChanged, onResourceUpdated } = options;
  if (onToolsChanged) client.setNotificationHandler('notifications/tools/list_changed', () => onToolsChanged());
  if (onResourceUpdated)
    client.setNotificationHandler('notifications/resources/updated', ({ params }) => onResourceUpdated(params.uri));
  if (onLog)
    client.setNotificationHandler('notifications/message', ({ params }) => {
      const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      onLog(data, { level: params.level, ...(params.logger ? { logger: params.logger } : {}) });
    });
  return client;
}

/** Connects over Streamable HTTP, speaking 2026-07-28 where the server does (and, unless pinned, 2025-11-25 where not). */
export async function connectModernHttp(url: string, options: ModernConnectOptions): Promise<ModernConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.requestInit ? { requestInit: options.requestInit } : {}),
    ...(options.oauth
      ? {
          // The 1.x provider's shape is the v2 one's (its issuer binding is optional); the fetch is the same guard.
          authProvider: options.oauth.provider as unknown as OAuthClientProviderV2,
          fetch: options.oauth.fetch as FetchLikeV2,
        }
      : {}),
  });
  return connectModern(transport, options);
}

/** Connects the v2 client on a transport of the caller's (HTTP, or a stdio server's `ProcessTransport`, probed in place). */
export async function connectModern(transport: TransportV2, options: ModernConnectOptions): Promise<ModernConnection> {
  const client = newModernClient(options);
  const raw = createRawRequests(transport.send.bind(transport), options.onNotice ?? (() => undefined));
  const legs = guardLegs(transport, raw.observe);
  try {
    await client.connect(transport, {
      timeout: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.prior ? { prior: options.prior } : {}),
    });
  } catch (error) {
    await client.close().catch(() => undefined);
    const mapped = toHostError(error);
    if (options.pinned && error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed)
      throw new NotModernError(error);
    throw mapped;
  }
  const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  const listener = era === 'modern' ? createModernListener(client, options.onNotice ?? (() => undefined)) : undefined;
  void listener?.start();
  if (era === 'modern') raw.attach(transport);
  return {
    client,
    transport,
    legs,
    era,
    tasks: era === 'modern' ? modernTasks(client, raw, options) : undefined,
    protocolVersion: client.getNegotiatedProtocolVersion() ?? 'unknown',
    discover: client.getDiscoverResult(),
    listener,
    close: async () => {
      await listener?.close();
      await client.close();
    },
  };
}

/**
 * The v2 client in the shape and the errors of the 1.x `Client` (mcp-session.ts): its protocol errors become
 * `McpError`s with the same codes, its timeouts and closed connections the 1.x codes for them, its 401 the 1.x
 * `UnauthorizedError`; so the supervisor's handling (sign-in, timeouts, URL elicitation, a server's error as a tool
 * result) is the same for both revisions.
 */
export function modernSession({
  client,
  legs,
  listener,
  tasks,
}: Pick<ModernConnection, 'client' | 'legs'> & Partial<Pick<ModernConnection, 'listener' | 'tasks'>>): McpSession {
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toHostError(error);
    }
  };
  type Loose = (...args: unknown[]) => Promise<unknown>;
  const call =
    (method: Loose): Loose =>
    (...args) =>
      run(() => method.apply(client, args));
  const session = {
    // Tool calls as tasks of the extension (modern-tasks.ts, `modernTasksOf`): outside the McpSession shape.
    modernTasks: tasks,
    getServerVersion: () => client.getServerVersion(),
    getServerCapabilities: () => client.getServerCapabilities(),
    setLoggingLevel: call(client.setLoggingLevel as Loose),
    sendRootsListChanged: call(client.sendRootsListChanged as Loose),
    request: async (
      request: { method: string; params?: Record<string, unknown> },
      schema: unknown,
      options?: object,
    ) => {
      const { admitLeg, ...given } = (options ?? {}) as CallLegOptions & RequestOptions;
      const rest = forV2Client(given);
      if (request.method !== 'tools/call' || !admitLeg)
        return run(() => client.request(request as never, schema as never, rest));
      // A copy of the arguments per call: the SDK's retry legs carry this very object, so the transport finds the door.
      const args = { ...((request.params?.['arguments'] as Record<string, unknown> | undefined) ?? {}) };
      legs.set(args, admitLeg);
      try {
        return await run(() =>
          client.request(
            { ...request, params: { ...request.params, arguments: args } } as never,
            schema as never,
            rest,
          ),
        );
      } finally {
        legs.delete(args);
      }
    },
    listResources: call(client.listResources as Loose),
    listResourceTemplates: call(client.listResourceTemplates as Loose),
    readResource: call(client.readResource as Loose),
    // 2026-07-28 has no resources/subscribe: the resource joins the session's listen stream (modern-listen.ts).
    subscribeResource: listener
      ? (params: { uri: string }, options?: RequestOptions) =>
          run(() => listener.subscribe(params.uri, options?.timeout)).then(() => ({}))
      : call(client.subscribeResource as Loose),
    unsubscribeResource: listener
      ? (params: { uri: string }, options?: RequestOptions) =>
          run(() => listener.unsubscribe(params.uri, options?.timeout)).then(() => ({}))
      : call(client.unsubscribeResource as Loose),
    listPrompts: call(client.listPrompts as Loose),
    getPrompt: call(client.getPrompt as Loose),
    complete: call(client.complete as Loose),
    close: async () => {
      await listener?.close();
      await client.close();
    },
  };
  return session as unknown as McpSession;
}

/**
 * The request options as the v2 client takes them. A real AbortSignal for the supervisor's CallAbort (call-abort.ts:
 * the 1.x client reads no more of a signal than it has). And the SDK reports each pass of its `input_required`
 * driver as progress ("Fulfilling input required by 'tools/call' …"): words of the SDK, not of the server, so they
 * are not shown as the server's progress.
 */
function forV2Client(options: RequestOptions): RequestOptions {
  const { onprogress, signal } = options;
  const real = signal instanceof CallAbort ? signal.toAbortSignal() : undefined;
  if (!onprogress && !real) return options;
  return {
    ...options,
    ...(real ? { signal: real } : {}),
    ...(onprogress
      ? {
          onprogress: (progress: Parameters<typeof onprogress>[0]) => {
            if (progress.message?.startsWith('Fulfilling input required by ')) return;
            onprogress(progress);
          },
        }
      : {}),
  };
}

/**
 * Each further leg of a multi-round-trip `tools/call` (it carries `inputResponses` or `requestState`) passes the door
 * of its call before it is sent (mcp-session.ts, `CallLegOptions`); a leg whose call is not known is not sent at all.
 * `observe` sees every message the SDK sends (the raw path learns the SDK's request envelope from it, raw-requests.ts);
 * the raw path's own requests do not come through here: each passes its call's door where it is made (modern-tasks.ts).
 */
function guardLegs(transport: TransportV2, observe: (message: unknown) => void): WeakMap<object, () => void> {
  const legs = new WeakMap<object, () => void>();
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    observe(message);
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    if (method === 'tools/call' && params && ('inputResponses' in params || 'requestState' in params)) {
      const admit = legs.get(params['arguments'] as object);
      if (!admit) throw new Error('A further leg of a tool call came without the call it belongs to; it was not sent.');
      admit();
    }
    return send(message, options);
  };
  return legs;
}

/** What the session brings to run tasks of the extension, when the server offered it (modern-tasks.ts). */
function modernTasks(client: Client, raw: RawRequests, options: ModernConnectOptions): ModernTasks {
  const extension = client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION];
  return createModernTasks({
    raw,
    offered: typeof extension === 'object' && extension !== null,
    serverRequests: options.serverRequests,
    roots: options.roots,
  });
}

/** A v2 SDK error as the 1.x SDK would have thrown it (see `modernSession`). */
export function toHostError(error: unknown): unknown {
  if (error instanceof UnauthorizedErrorV2) return new UnauthorizedError(error.message);
  if (error instanceof ProtocolError) return new McpError(error.code, error.message, error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return new McpError(ErrorCode.RequestTimeout, error.message, error.data);
    if (error.code === SdkErrorCode.ConnectionClosed)
      return new McpError(ErrorCode.ConnectionClosed, error.message, error.data);
  }
  return error;
}
