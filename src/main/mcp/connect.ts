import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpLogLevel } from '../../shared/mcp';
import { APP_NAME } from '../../shared/app-name';
import type { McpSession } from './mcp-session';
import { bundledServerStartArgs, type NodeRuntime } from './node-runtime';
import {
  IdentityProviderSignInError,
  MoreAccessRequiredError,
  SignInRequiredError,
  UnsafeEndpointError,
} from './oauth/oauth-provider';
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { ModernConnection } from './modern-client';
import { modernClientModule } from './modern-module';
import type { ProbeVerdicts } from './probe-verdicts';
import { serverIdentity } from './server-identity';
import { ProcessTransport, SpawnError } from './process-transport';
import { handOver, probeStdio, STDIO_PROBE_TIMEOUT_MS } from './stdio-probe';
import type { LaunchConfig } from './server-config-service';
import { registerServerRequests, type BoundServerRequests } from './server-request-routing';
import {
  containedServer,
  ContainmentError,
  describeBlock,
  planSpawn,
  type SandboxBlock,
  type SandboxHost,
  type SpawnPlan,
} from './sandbox';

export { describeBlock } from './sandbox';

/** A live session with one server. */
export interface Connection {
  /** The session, through the 1.x client (2025-11-25) or the v2 client (2026-07-28); the host does not know which. */
  readonly client: McpSession;
  /** The negotiated MCP protocol revision (docs/dev/protocol-2026.md). */
  readonly protocolVersion: string | undefined;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly pid: number | undefined;
  /** A stdio server's sandbox: `contained` or `not-contained` (docs/user/sandbox.md); none for a remote server. */
  readonly containment: 'contained' | 'not-contained' | undefined;
  /** Why the session ended, once it has ("exited with code 3"…); undefined while it is open. */
  endReason(): string | undefined;
  /** Ends the session; a stdio server's process tree is stopped (SIGTERM, then SIGKILL). */
  close(): Promise<void>;
  /** Kills a stdio server's process tree synchronously; for a host that exits now. */
  killNow(): void;
}

export interface ConnectOptions {
  runtime: NodeRuntime;
  initializeTimeoutMs: number;
  clientVersion: string;
  maxMessageBytes?: number;
  stopGraceMs?: number;
  /** A line for the server's log: `stderr` as the server wrote it, `host` for what we noticed, `server` for its MCP log messages. */
  log(source: 'stderr' | 'host' | 'server', text: string, detail?: { level: McpLogLevel; logger?: string }): void;
  /** The folders the server may work in, as `file://` URIs (MCP roots; docs/user/mcp-servers.md#roots). */
  roots?(): { uri: string; name?: string }[];
  /** A resource the client subscribed to changed (`notifications/resources/updated`). */
  onResourceUpdated?(uri: string): void;
  /** The session ended without us closing it (the process exited, the stream broke). */
  onUnexpectedClose(reason: string): void;
  onToolsChanged(): void;
  /** Called as soon as there is something to stop, before initialize completes. */
  onStarting?(handle: Pick<Connection, 'close' | 'killNow'>): void;
  /** Who answers the server's sampling and elicitation requests; without it, neither is advertised. */
  serverRequests?: BoundServerRequests | undefined;
  /** OAuth for an HTTP server (src/main/mcp/oauth): the SDK's provider and the fetch that guards and refreshes. */
  oauth?:
    | {
        provider: OAuthClientProvider;
        fetch: FetchLike;
        /** No tokens to refresh and no grant without a person: a 401 only asks for a sign-in (oauth-session.ts). */
        onlyAsksForSignIn?(): boolean;
      }
    | undefined;
  /** Where and how stdio servers are contained (docs/user/sandbox.md); without it they run unconfined. */
  sandbox?: SandboxHost | undefined;
  /** The sandbox refused the server something (reported by the server's reporter: a hint, not a decision). */
  onBlock?(block: SandboxBlock): void;
  /** How long a stdio server has to answer `server/discover` (docs/dev/protocol-2026.md, "stdio"). */
  probeTimeoutMs?: number;
  /** What each server answered `server/discover` at its last start, shared by a host's servers (probe-verdicts.ts). */
  verdicts?: ProbeVerdicts | undefined;
}

/** The thing a failed start says, in words a person reads. Retrying will not help when `permanent`. */
export class ConnectError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** The server waits for the person to sign in (docs/user/mcp-oauth.md); retrying will not help. */
    readonly needsSignIn = false,
    /** The message says more than "sign in" (signInMessage): the status shows it. */
    readonly signInExplained = false,
  ) {
    super(message);
    this.name = 'ConnectError';
  }
}

/** Starts (stdio) or reaches (HTTP) a server and completes MCP's initialize handshake. */
export async function connect(launch: LaunchConfig, options: ConnectOptions): Promise<Connection> {
  const { verdicts } = options;
  if (!verdicts) return launch.kind === 'stdio' ? connectStdio(launch, options) : connectHttp(launch, options);
  const identity = serverIdentity(
    launch.kind === 'http'
      ? { url: launch.url }
      : { command: launch.command, package: launch.package, args: launch.args, cwd: launch.cwd },
  ).key;
  // A discover result is reused only within one authorization context (the SDK's `prior`): behind OAuth only the
  // answer "not 2026-07-28" is remembered, which no sign-in changes.
  const signedIn = launch.kind === 'http' && options.oauth !== undefined;
  const known = verdicts.get(identity);
  let found = false;
  const memory: VerdictMemory = {
    known: signedIn && known?.kind === 'modern' ? undefined : known,
    remember: (verdict) => {
      found = true;
      if (!signedIn || verdict.kind === 'legacy') verdicts.remember(identity, verdict);
    },
  };
  const forgetting: ConnectOptions = {
    ...options,
    onUnexpectedClose: (reason) => {
      verdicts.forget(identity);
      options.onUnexpectedClose(reason);
    },
  };
  try {
    return await (launch.kind === 'stdio'
      ? connectStdio(launch, forgetting, memory)
      : connectHttp(launch, forgetting, memory));
  } catch (error) {
    // A failed start forgets what an earlier start found; what this one found stays (a server that crashes at every
    // start is then not started twice each time).
    if (!found) verdicts.forget(identity);
    throw error;
  }
}

const LEGACY_LAST_TIME = 'The server spoke 2025-11-25 at its last start: it is not asked server/discover again.';

/** One server's remembered answer to `server/discover` (probe-verdicts.ts). */
interface VerdictMemory {
  known: PriorDiscovery | undefined;
  remember(verdict: PriorDiscovery): void;
}

/**
 * The 1.x client validates tool output schemas only in its own `listTools` and `callTool`; the host lists and calls
 * through `request` and checks results itself (schema-check.ts), so the Ajv instance the client would build at every
 * start (about a millisecond) is built only if one of them is ever used.
 */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

function newClient(options: ConnectOptions): Client {
  const client = new Client(
    { name: APP_NAME, version: options.clientVersion },
    {
      capabilities: options.roots ? { roots: { listChanged: true } } : {},
      jsonSchemaValidator: lazyValidator(),
    },
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    options.log('server', data, { level: params.level, ...(params.logger ? { logger: params.logger } : {}) });
  });
  registerServerRequests(client, options.serverRequests);
  const { roots, onResourceUpdated } = options;
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots() }));
  if (onResourceUpdated)
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => onResourceUpdated(params.uri));
  return client;
}

async function connectStdio(
  launch: Extract<LaunchConfig, { kind: 'stdio' }>,
  options: ConnectOptions,
  memory?: VerdictMemory,
): Promise<Connection> {
  let command: string;
  let args: string[];
  let env: Record<string, string>;
  if (launch.package) {
    let program: string[];
    try {
      // Node options of the person's own (NODE_OPTIONS in the server's env) may not load a snapshot: the plain file then.
      const runtime =
        launch.env.NODE_OPTIONS === undefined ? options.runtime : { ...options.runtime, snapshotKey: undefined };
      program = bundledServerStartArgs(launch.package, runtime);
    } catch (error) {
      throw new ConnectError((error as Error).message, true);
    }
    command = options.runtime.command;
    args = [...program, ...launch.args];
    env = { ...getDefaultEnvironment(), ...options.runtime.env, ...launch.env };
  } else {
    command = launch.command as string;
    args = launch.args;
    // Only the variables a program needs to run (PATH, HOME…), never the app's whole environment.
    env = { ...getDefaultEnvironment(), ...launch.env };
  }
  // A function: a server that exits when asked server/discover is started again, with a sandbox of its own.
  const startProcess = async (): Promise<{ transport: ProcessTransport; containment: Connection['containment'] }> => {
    let plan: SpawnPlan | undefined;
    if (options.sandbox) {
      try {
        plan = await planSpawn(
          containedServer(launch),
          { command, args, env, runtimeEnv: launch.package ? options.runtime.env : {} },
          options.sandbox,
          options.runtime.command,
          (text) => options.log('host', text),
        );
      } catch (error) {
        if (error instanceof ContainmentError) throw new ConnectError(error.message, true);
        throw new ConnectError(`The server's sandbox could not be set up: ${describeError(error)}`, true);
      }
    }
    const blocked = (block: SandboxBlock): void => {
      options.log('host', describeBlock(launch.name, block));
      options.onBlock?.(block);
    };
    plan?.onBlock(blocked);
    const transport = new ProcessTransport({
      command: plan?.command ?? command,
      args: plan?.args ?? args,
      env: plan?.env ?? env,
      cwd: plan ? plan.cwd : launch.cwd,
      maxMessageBytes: options.maxMessageBytes,
      stopGraceMs: options.stopGraceMs,
      onStderrLine: (line) => {
        const block = plan?.parseBlock(line);
        if (block) blocked(block);
        else options.log('stderr', line);
      },
      onNotice: (text) => options.log('host', text),
      onExit: () => plan?.close(),
    });
    options.onStarting?.({ close: () => transport.close(), killNow: () => transport.killNow() });
    return {
      transport,
      containment: plan === undefined ? 'not-contained' : plan.profile ? 'contained' : 'not-contained',
    };
  };
  let started = await startProcess();
  const startedAt = Date.now();
  // 2026-07-28 first, on the process just started (docs/dev/protocol-2026.md, "stdio"), unless it was 2025-11-25 last time.
  let takeOver: Transport = started.transport;
  if (memory?.known?.kind === 'legacy') options.log('host', LEGACY_LAST_TIME);
  else {
    const probeTimeoutMs = Math.min(options.probeTimeoutMs ?? STDIO_PROBE_TIMEOUT_MS, options.initializeTimeoutMs);
    const probed = await probeStdio(started.transport, {
      clientVersion: options.clientVersion,
      timeoutMs: options.initializeTimeoutMs,
      probeTimeoutMs,
      prior: memory?.known,
      serverRequests: options.serverRequests,
      roots: options.roots,
      onLog: (text, detail) => options.log('server', text, detail),
      onToolsChanged: () => options.onToolsChanged(),
      onResourceUpdated: options.onResourceUpdated,
    });
    if (probed.kind === 'modern') {
      if (probed.opened.discover) memory?.remember({ kind: 'modern', discover: probed.opened.discover });
      return modernStdio(probed.opened, started.transport, started.containment, options);
    }
    if (probed.kind === 'failed') {
      await started.transport.close();
      return failedStart(probed.error, started.transport, startedAt, options);
    }
    memory?.remember({ kind: 'legacy' });
    if (probed.kind === 'exited') {
      options.log(
        'host',
        `The server ${probed.reason} when it was asked server/discover; starting it again to speak 2025-11-25.`,
      );
      started = await startProcess();
      takeOver = started.transport;
    } else {
      options.log('host', `The server does not speak 2026-07-28 (${probed.why}); speaking 2025-11-25 to it.`);
      takeOver = handOver(started.transport);
    }
  }
  const { transport, containment } = started;
  const client = newClient(options);
  const negotiated = recordProtocolVersion(takeOver);
  // Only a session that was ready can end unexpectedly; a failed start is reported by the throw below.
  let live = false;
  let closing = false;
  client.onclose = () => {
    if (live && !closing) options.onUnexpectedClose(`The server ${transport.endReason ?? 'closed its connection'}.`);
  };
  try {
    await client.connect(takeOver, { timeout: options.initializeTimeoutMs });
  } catch (error) {
    closing = true;
    // A server that exited by itself did not refuse 2025-11-25: what was known of it stays (probe-verdicts.ts).
    if (memory?.known?.kind === 'legacy' && transport.endReason !== undefined && transport.endReason !== 'was stopped')
      memory.remember(memory.known);
    await transport.close();
    return failedStart(error, transport, startedAt, options);
  }
  live = true;
  options.log(
    'host',
    `Connected to ${describeServer(client)} (pid ${transport.pid}), protocol ${negotiated() ?? 'unknown'}.`,
  );
  return {
    client,
    protocolVersion: negotiated(),
    transport: 'stdio',
    containment,
    pid: transport.pid,
    endReason: () => transport.endReason,
    close: async () => {
      closing = true;
      await transport.close();
    },
    killNow: () => transport.killNow(),
  };
}

/** A stdio server that answered `server/discover` with 2026-07-28: the v2 client keeps the process it probed. */
async function modernStdio(
  opened: ModernConnection,
  transport: ProcessTransport,
  containment: Connection['containment'],
  options: ConnectOptions,
): Promise<Connection> {
  const { modernSession } = await modernClientModule();
  let closing = false;
  opened.client.onclose = () => {
    if (!closing) options.onUnexpectedClose(`The server ${transport.endReason ?? 'closed its connection'}.`);
  };
  const info = opened.client.getServerVersion();
  options.log(
    'host',
    `Connected to ${info ? `${info.name} ${info.version}` : 'the server'} (pid ${transport.pid}), protocol ${opened.protocolVersion}.`,
  );
  return {
    client: modernSession(opened),
    protocolVersion: opened.protocolVersion,
    transport: 'stdio',
    containment,
    pid: transport.pid,
    endReason: () => transport.endReason,
    close: async () => {
      closing = true;
      await opened.listener?.close();
      await transport.close();
    },
    killNow: () => transport.killNow(),
  };
}

/** Why a stdio server did not become ready, as one `ConnectError` (thrown). */
function failedStart(error: unknown, transport: ProcessTransport, startedAt: number, options: ConnectOptions): never {
  const reason = transport.endReason && transport.endReason !== 'was stopped' ? transport.endReason : undefined;
  if (error instanceof ConnectError) throw error;
  if (error instanceof SpawnError) throw new ConnectError(error.message, true);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    throw new ConnectError(
      `The server did not answer initialize within ${seconds(options.initializeTimeoutMs)}.`,
      false,
    );
  }
  if (reason)
    throw new ConnectError(
      `The server ${reason} before it was ready (${seconds(Date.now() - startedAt)} after it started).`,
      false,
    );
  throw new ConnectError(`The server failed to start: ${describeError(error)}`, false);
}

async function connectHttp(
  launch: Extract<LaunchConfig, { kind: 'http' }>,
  options: ConnectOptions,
  memory?: VerdictMemory,
): Promise<Connection> {
  let url: URL;
  try {
    url = new URL(launch.url);
  } catch {
    throw new ConnectError(`"${launch.url}" is not a URL.`, true);
  }
  const requestInit: RequestInit = { headers: launch.headers };
  const oauth = options.oauth ? { authProvider: options.oauth.provider, fetch: options.oauth.fetch } : {};
  /**
   * One 1.x client on `kind`, its initialize done. It becomes the server's session when adopted (its log line, its
   * unexpected end reported); one opened beside the probe and not adopted is only closed.
   */
  const open = async (
    kind: 'http' | 'sse',
    onStarting = options.onStarting,
  ): Promise<{ connection: Connection; adopt(): Connection }> => {
    const client = newClient(options);
    const transport: Transport =
      kind === 'http'
        ? new StreamableHTTPClientTransport(url, { requestInit, ...oauth })
        : new SSEClientTransport(url, { requestInit, ...oauth });
    const negotiated = recordProtocolVersion(transport);
    let live = false;
    let closing = false;
    let ended: string | undefined;
    client.onclose = () => {
      ended ??= 'closed the connection';
      if (live && !closing) options.onUnexpectedClose(`The server ${ended}.`);
    };
    onStarting?.({
      close: () => client.close().catch(() => undefined),
      killNow: () => void client.close().catch(() => undefined),
    });
    try {
      await client.connect(transport, { timeout: options.initializeTimeoutMs });
    } catch (error) {
      closing = true;
      await client.close().catch(() => undefined);
      throw error;
    }
    const connection: Connection = {
      client,
      protocolVersion: negotiated(),
      transport: kind,
      containment: undefined,
      pid: undefined,
      endReason: () => ended,
      close: async () => {
        closing = true;
        ended ??= 'was stopped';
        if (transport instanceof StreamableHTTPClientTransport)
          await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
      },
      killNow: () => {
        closing = true;
        void client.close().catch(() => undefined);
      },
    };
    return {
      connection,
      adopt: () => {
        if (ended !== undefined) throw new Error(`The server ${ended}.`);
        live = true;
        options.log(
          'host',
          `Connected to ${describeServer(client)} at ${url.href} over ${kind === 'http' ? 'Streamable HTTP' : 'SSE'}, protocol ${negotiated() ?? 'unknown'}.`,
        );
        return connection;
      },
    };
  };
  const attempt = async (kind: 'http' | 'sse'): Promise<Connection> => (await open(kind)).adopt();
  /**
   * A first start: the probe and the 1.x client's initialize go out together, so a 2025-11-25 server costs no extra
   * round trip. A server that offers 2026-07-28 keeps the v2 client, and the 1.x session opened beside it is ended
   * (DELETE); any other answer to the probe adopts the 1.x session (docs/dev/protocol-2026.md).
   */
  const probeBesideInitialize = async (): Promise<Connection> => {
    const handles: Array<Pick<Connection, 'close' | 'killNow'>> = [];
    const onStarting = (handle: Pick<Connection, 'close' | 'killNow'>): void => {
      handles.push(handle);
      options.onStarting?.({
        close: async () => void (await Promise.all(handles.map((each) => each.close()))),
        killNow: () => handles.forEach((each) => each.killNow()),
      });
    };
    const legacy = open('http', onStarting);
    // Decided below, once the probe has answered; until then its failure is nobody's.
    legacy.catch(() => undefined);
    const dropLegacy = (): void =>
      void legacy.then(
        ({ connection }) => connection.close(),
        () => undefined,
      );
    let modern: Connection | undefined;
    try {
      modern = await attemptModern(url, requestInit, { ...options, onStarting }, memory);
    } catch (error) {
      dropLegacy();
      throw error;
    }
    if (modern) {
      dropLegacy();
      return modern;
    }
    return (await legacy).adopt();
  };
  const fail = (error: unknown): ConnectError => {
    if (isSignInError(error))
      return new ConnectError(
        signInMessage(error) ?? `${url.href} needs you to sign in.`,
        true,
        true,
        !!signInMessage(error),
      );
    if (error instanceof UnsafeEndpointError) return new ConnectError(error.message, true);
    // The server's protected-resource metadata names another resource (RFC 9728 §3.3): no token is asked for it,
    // and asking again will not change what the server says.
    if (error instanceof Error && /^Protected resource \S+ does not match expected/.test(error.message)) {
      return new ConnectError(
        `${url.href} cannot be signed in to: its OAuth metadata is for another resource. ${error.message}.`,
        true,
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new ConnectError(
        `${url.href} did not answer initialize within ${seconds(options.initializeTimeoutMs)}.`,
        false,
      );
    }
    return new ConnectError(`Cannot connect to ${url.href}: ${describeError(error)}`, false);
  };
  if (launch.type === 'sse') return attempt('sse').catch((error: unknown) => Promise.reject(fail(error)));
  try {
    // 2026-07-28 first; a server that does not offer it is reached with the 1.x client (docs/dev/protocol-2026.md).
    const known = memory?.known;
    if (known?.kind === 'legacy') {
      options.log('host', LEGACY_LAST_TIME);
      return await attempt('http');
    }
    // Beside the probe only when a 401 could not start a refresh or a grant twice at once.
    const together = known === undefined && (options.oauth ? options.oauth.onlyAsksForSignIn?.() === true : true);
    if (together) return await probeBesideInitialize();
    const modern = await attemptModern(url, requestInit, options, memory);
    if (modern) return modern;
    return await attempt('http');
  } catch (error) {
    // The MCP spec's backwards compatibility: a 4xx to the initialize POST means an older server that speaks SSE.
    const status = error instanceof StreamableHTTPError ? error.code : undefined;
    if (launch.type === 'auto' && status !== undefined && status >= 400 && status < 500) {
      options.log('host', `${url.href} answered HTTP ${status} to Streamable HTTP; trying the older SSE transport.`);
      return attempt('sse').catch((sseError: unknown) => Promise.reject(fail(sseError)));
    }
    throw fail(error);
  }
}

/** The v2 client on a server that speaks 2026-07-28; undefined when the server does not (docs/dev/protocol-2026.md). */
async function attemptModern(
  url: URL,
  requestInit: RequestInit,
  options: ConnectOptions,
  memory: VerdictMemory | undefined,
): Promise<Connection | undefined> {
  const { connectModernHttp, modernSession, NotModernError } = await modernClientModule();
  let live = false;
  let closing = false;
  let ended: string | undefined;
  let opened: Awaited<ReturnType<typeof connectModernHttp>>;
  const stopping = new AbortController();
  options.onStarting?.({ close: async () => stopping.abort(), killNow: () => stopping.abort() });
  try {
    opened = await connectModernHttp(url.href, {
      clientVersion: options.clientVersion,
      timeoutMs: options.initializeTimeoutMs,
      requestInit,
      pinned: true,
      prior: memory?.known,
      serverRequests: options.serverRequests,
      roots: options.roots,
      oauth: options.oauth,
      onLog: (text, detail) => options.log('server', text, detail),
      onNotice: (text) => options.log('host', text),
      onToolsChanged: () => options.onToolsChanged(),
      onResourceUpdated: options.onResourceUpdated,
      signal: stopping.signal,
    });
  } catch (error) {
    // A stopped start, a sign-in the probe needs and an outage (the probe timed out) end here; any other failure of
    // the probe (a server that does not speak 2026-07-28, or OAuth metadata only the 1.x client's tested flow reads)
    // is left to the 1.x path, which reports its own errors (docs/dev/protocol-2026.md).
    if (error instanceof NotModernError) {
      memory?.remember({ kind: 'legacy' });
      return undefined;
    }
    if (stopping.signal.aborted || needsSignIn(error) || isTimeout(error)) throw error;
    return undefined;
  }
  if (opened.discover) memory?.remember({ kind: 'modern', discover: opened.discover });
  const { client } = opened;
  client.onclose = () => {
    ended ??= 'closed the connection';
    if (live && !closing) options.onUnexpectedClose(`The server ${ended}.`);
  };
  live = true;
  const info = client.getServerVersion();
  options.log(
    'host',
    `Connected to ${info ? `${info.name} ${info.version}` : 'the server'} at ${url.href} over Streamable HTTP, protocol ${opened.protocolVersion}.`,
  );
  return {
    client: modernSession(opened),
    protocolVersion: opened.protocolVersion,
    transport: 'http',
    containment: undefined,
    pid: undefined,
    endReason: () => ended,
    close: async () => {
      closing = true;
      ended ??= 'was stopped';
      await opened.close().catch(() => undefined);
    },
    killNow: () => {
      closing = true;
      void opened.close().catch(() => undefined);
    },
  };
}

/** The revision the 1.x client negotiated in initialize: it tells the transport (`setProtocolVersion`). */
function recordProtocolVersion(transport: Transport): () => string | undefined {
  let version: string | undefined;
  const tell = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (next: string) => {
    version = next;
    tell?.(next);
  };
  return () => version;
}

/** The server wants a sign-in: no token, a refresh token that no longer works, or a token with too few scopes. */
export function isSignInError(error: unknown): boolean {
  return error instanceof SignInRequiredError || error instanceof UnauthorizedError;
}

/**
 * What the person reads about a sign-in that a server needs, when it says more than "sign in": more access, or what
 * the identity provider said (cross-app access).
 */
export function signInMessage(error: unknown): string | undefined {
  return error instanceof MoreAccessRequiredError || error instanceof IdentityProviderSignInError
    ? error.message
    : undefined;
}

function describeServer(client: Client): string {
  const info = client.getServerVersion();
  return info ? `${info.name} ${info.version}` : 'the server';
}

/** An error as one readable sentence: fetch's "fetch failed" says nothing; its cause does. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (error.message === 'fetch failed' && cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'the connection was refused (is the server running?)';
    if (code === 'ENOTFOUND') return 'the host name was not found';
    return cause.message;
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    return `the server answered HTTP ${error.code}${error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, ': ').replace(/^: $/, '')}`;
  }
  return error.message;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${+(ms / 1000).toFixed(1)} s`;
}

function needsSignIn(error: unknown): boolean {
  return (
    error instanceof UnauthorizedError ||
    error instanceof SignInRequiredError ||
    error instanceof MoreAccessRequiredError
  );
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}
