import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  MCP_DEFAULT_INITIALIZE_TIMEOUT_MS,
  type McpLogLevel,
  type McpLogLine,
  type McpCompleteOutput,
  type McpGetPromptOutput,
  type McpPromptsOutput,
  type McpReadResourceOutput,
  type McpResourcesOutput,
  type McpServerView,
  type McpTool,
} from '../../shared/mcp';
import type { McpToolResult } from '../../shared/mcp-result';
import type { ToolProgress } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SecretStore } from '../settings/secret-store';
import type { CallDoor } from './call-door';
import { createLogRing, type LogRing } from './log-ring';
import { DEFAULT_CLIENT_METADATA_URL, createOAuthSession, type OAuthSession } from './oauth/oauth-session';
import type { PreRegisteredClient } from './oauth/oauth-provider';
import { detectNodeRuntime, withCompileCache, type NodeRuntime } from './node-runtime';
import type {
  LaunchConfig,
  McpServerConfigService,
  OAuthClientSecrets,
  ServerConfigView,
} from './server-config-service';
import { sandboxDir } from './server-settings';
import {
  createServerSupervisor,
  DEFAULT_RESTART_POLICY,
  type RestartPolicy,
  type ServerSupervisor,
  type SupervisorStatus,
} from './server-supervisor';
import type { ServerRequestHandler } from './server-request-routing';
import { completePromptArgument, getPrompt, listPrompts } from './prompts';
import { listResources, readResource } from './resources';
import { readAppView } from './app-view';
import type { McpAppView } from '../../shared/mcp-apps';
import { createStartSlots } from './start-slots';
import type { ManagedSandbox } from '../../shared/approval';
import { appInstallation, type SandboxBlock, type SandboxHost } from './sandbox';
import { NO_SANDBOX_LIMITS } from './sandbox/limits';
import { createToolListCache } from './tool-list-cache';
import { createToolRegistry, type RegisteredTool } from './tool-registry';

export interface McpHostOptions {
  /** Sent to servers as the client's version. */
  clientVersion: string;
  runtime?: NodeRuntime;
  initializeTimeoutMs?: number;
  restart?: Partial<RestartPolicy>;
  maxMessageBytes?: number;
  stopGraceMs?: number;
  /** How many local servers start at once; default one per core (start-slots.ts). */
  startSlots?: number;
  /**
   * The organisation's limits on contained servers (docs/user/sandbox.md#organisation). Every stdio server is
   * contained by default; `false` runs them unconfined (benchmarks' floors only).
   */
  sandbox?: { limits?: ManagedSandbox | undefined } | false;
}

export interface McpHostDependencies {
  config: McpServerConfigService;
  events: EventHub;
  dataDir: string;
  options: McpHostOptions;
  /** Who decides the servers' sampling and elicitation requests; without it, servers are not offered either. */
  serverRequests?: ServerRequestHandler | undefined;
  /** Where OAuth tokens and client registrations live; without it, HTTP servers get no OAuth. */
  secrets?: SecretStore;
  /** Shows a sign-in page in the person's browser; false when this machine cannot (docs/user/mcp-oauth.md). */
  openSignInPage?: (url: string) => boolean;
  /** A server's sandbox refused it something, during `call` when one call of it was running (docs/user/sandbox.md#blocks). */
  onBlock?: (
    serverName: string,
    block: SandboxBlock,
    call: { toolName: string; chatId?: string | undefined } | undefined,
  ) => void;
  /** What every tool call passes right before it is sent to a server, retries included (call-door.ts). */
  door: CallDoor;
  /** The organisation's OAuth settings (docs/user/organisation-policy.md#oauth): its clients and metadata document. */
  oauthPolicy?: () => OAuthPolicy;
}

/** How OAuth clients identify themselves, as the organisation sets it (docs/user/mcp-oauth.md#client-registration). */
export interface OAuthPolicy {
  /** The client metadata document's URL (a URL-based client id); DEFAULT_CLIENT_METADATA_URL when unset. */
  clientMetadataUrl?: string | undefined;
  /** Pre-registered clients by authorization server (its issuer URL). */
  clients?: Record<string, { clientId: string; clientSecret?: string | undefined }> | undefined;
}

/**
 * How long a window's host lets servers with known tools wait at launch (`start({ deferMs })`): about a first
 * screen on a small machine (docs/dev/benchmarks.md, app-start); a message or any request starts them at once.
 */
export const WINDOW_START_DEFER_MS = 1500;

export interface WhenSettledOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  serverName?: string | undefined;
  acceptCached?: boolean | undefined;
}

/** A sign-in started for a server: where to sign in, and whether a browser shows it already. */
export interface SignInStarted {
  name: string;
  authorizationUrl: string;
  openedBrowser: boolean;
}

export interface ToolCallRequest {
  serverName: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Aborting cancels the call and tells the server (MCP notifications/cancelled). */
  signal?: AbortSignal;
  /** Overrides the server's call timeout. */
  timeoutMs?: number;
  /**
   * The hash of the definition the call was decided on: when the server lists the tool differently now (it
   * restarted with another definition meanwhile), the call does not run and `conflict` is thrown.
   */
  definitionHash?: string | undefined;
  /** The chat the call runs for: a sampling or elicitation request the server makes meanwhile belongs to it. */
  chatId?: string | undefined;
  /** The exchange and the call's id in the chat, as the door's audit row names them (call-door.ts). */
  exchangeId?: string | undefined;
  toolCallId?: string | undefined;
  /** The server's progress notifications for this call; each restarts the timeout (docs/user/mcp-servers.md#progress). */
  onProgress?: (progress: ToolProgress) => void;
}

/**
 * The MCP servers of the settings, running: started together in the background, restarted when
 * they crash, reconciled with every settings change, stopped (process trees and all) on quit.
 * Status changes are pushed as `mcp.onDidChangeServer`, tool list changes as `mcp.onDidChangeTools`.
 */
export interface McpHost {
  /**
   * Starts every enabled server in the background and returns at once; later settings changes apply live. With
   * `deferMs`, a local server whose tools are known from its last launch starts that much later (a window's first
   * screen comes first), or as soon as something needs a server: a caller of `whenSettled`, a request, a restart,
   * a sign-in.
   */
  start(options?: { deferMs?: number }): void;
  /** Stops every server and waits until their processes are gone; nothing starts again afterwards. */
  stop(): Promise<void>;
  /** Kills every server's process tree synchronously: for `process.on('exit')`, where nothing can wait. */
  stopNow(): void;
  list(): McpServerView[];
  /** Throws `not_found`. */
  server(name: string): McpServerView;
  /** Forgets the server's crashes and starts it again. Throws `not_found`, or `invalid_input` for a disabled server. */
  restart(name: string): Promise<McpServerView>;
  /** Throws `not_found`. */
  logs(name: string, limit?: number): { name: string; lines: McpLogLine[]; dropped: number };
  /** Every known tool, or one server's (throws `not_found` for an unknown server). */
  tools(serverName?: string): McpTool[];
  /** The tool a provider-safe name stands for. */
  findTool(providerName: string): McpTool | undefined;
  /**
   * Runs a tool. Answers with the normalised result when the server answered (a tool error is a
   * result with `isError`); throws `not_found`, `invalid_input` (unusable tool), `unavailable`
   * (server not ready, or it stopped during the call), `timeout` or `cancelled` otherwise.
   */
  callTool(request: ToolCallRequest): Promise<McpToolResult>;
  /**
   * Resolves once no server is still starting: each is ready with its tools listed, failed, or stopped. Resolves
   * at once when the host is not running, and after `timeoutMs` (default: the initialize timeout) or when `signal`
   * aborts at the latest, so a caller never waits on a server that hangs. `serverName` waits for that server only;
   * `acceptCached` also counts a starting server whose tools are known from its last launch (`cached` tools).
   */
  whenSettled(options?: WhenSettledOptions): Promise<void>;
  /**
   * Starts the OAuth sign-in of an HTTP server (docs/user/mcp-oauth.md): returns once the sign-in page is known and
   * shown; the server starts again when the browser comes back. A second sign-in cancels the first.
   * Throws `not_found`, or `invalid_input` for a server that does not use OAuth.
   */
  signIn(name: string): Promise<SignInStarted>;
  /** Resolves when the server's sign-in in progress ends with tokens stored; throws `unauthorized` with why it did not. */
  awaitSignIn(name: string): Promise<void>;
  /** Forgets the server's tokens and client registration; it then needs a sign-in. */
  signOut(name: string): Promise<McpServerView>;
  /**
   * Signs in as the server's pre-registered client itself (the client-credentials grant: no person, no browser;
   * docs/user/mcp-oauth.md#client-credentials), then starts it again. Throws `unauthorized` with the server's reason.
   */
  signInAsClient(name: string): Promise<McpServerView>;
  /**
   * A server's resources and templates, and one resource's contents. Only a person's explicit request reaches these
   * (the contract's mcp.resources / mcp.readResource); the tool loop never calls them (docs/user/mcp-servers.md#resources).
   * Throw `not_found` or `unavailable` (server not ready).
   */
  resources(serverName: string): Promise<McpResourcesOutput>;
  readResource(serverName: string, uri: string): Promise<McpReadResourceOutput>;
  /**
   * The view a tool of the server declares (`_meta.ui.resourceUri`), read and checked (app-view.ts); what had to be
   * dropped from its declarations goes to the server's log. Throws `not_found` for a tool without a view.
   */
  appView(serverName: string, toolName: string): Promise<McpAppView>;
  /** Subscribes to (or unsubscribes from) a resource's changes; `subscribed` false when the server offers no subscriptions. */
  subscribeResource(serverName: string, uri: string, on: boolean): Promise<{ subscribed: boolean }>;
  /**
   * Prompts, likewise only on a person's request — a slash command (docs/user/mcp-servers.md#prompts): one server's,
   * or every ready server's (one that fails is left out); one prompt's messages; suggestions for an argument.
   */
  prompts(serverName?: string): Promise<McpPromptsOutput>;
  getPrompt(serverName: string, prompt: string, args: Record<string, string>): Promise<McpGetPromptOutput>;
  completePromptArgument(
    serverName: string,
    prompt: string,
    argument: string,
    value: string,
    context?: Record<string, string>,
  ): Promise<McpCompleteOutput>;
}

/** Whether the server's own headers carry its credentials (then AI Workbench does not do OAuth for it). */
function hasOwnAuthorization(launch: Extract<LaunchConfig, { kind: 'http' }>): boolean {
  return Object.keys(launch.headers).some((header) => header.toLowerCase() === 'authorization');
}

interface Entry {
  supervisor: ServerSupervisor;
  logs: LogRing;
  fingerprint: string;
  trusted: boolean;
  /** What the running server was last told: changes are sent without a restart. */
  logLevel: McpLogLevel;
  roots: string;
  /**
   * Where the server's tools come from: `unknown` until it lists them after a start; `last-launch` while it starts
   * with the list of its last launch (docs/user/mcp-servers.md#tool-lists-from-the-last-launch); `listed` once the
   * running process answered tools/list (or failed to, and has none).
   */
  tools: 'unknown' | 'last-launch' | 'listed';
  /** The launch parameters without their secret values, hashed: what the tool list cache is keyed by. */
  launchKey: string | undefined;
  /** Raw hashes of tools that passed the checks at the last launch: not checked again when listed the same. */
  known: ReadonlySet<string>;
  /** Waiting for `start`'s `deferMs` to pass (or for something to need it) before it starts. */
  deferred: boolean;
}

export function createMcpHost({
  config,
  events,
  dataDir,
  options,
  serverRequests,
  secrets,
  openSignInPage,
  door,
  oauthPolicy,
  onBlock,
}: McpHostDependencies): McpHost {
  const registry = createToolRegistry();
  const entries = new Map<string, Entry>();
  // A problem with the cache file is no problem of any one server: every server's log tells it.
  const toolLists = createToolListCache(path.join(dataDir, 'cache', 'tool-lists.json'), (message) => {
    for (const entry of entries.values()) entry.logs.push('host', message);
  });
  // Node's compile cache roughly halves the CPU a bundled server needs to start (it loads the SDK and zod
  // every time), which matters when a dozen start at once on a laptop's few cores.
  const runtime =
    options.runtime ?? withCompileCache(detectNodeRuntime(), path.join(dataDir, 'cache', 'node-compile-cache'));
  const restartPolicy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
  const startSlots = createStartSlots(options.startSlots);
  const sandbox: SandboxHost | undefined =
    options.sandbox === false
      ? undefined
      : { dataDir, appRoot: appInstallation(), limits: { ...NO_SANDBOX_LIMITS, ...(options.sandbox?.limits ?? {}) } };
  let phase: 'idle' | 'running' | 'stopped' = 'idle';
  let startedAt = 0;
  /** True only during `start`'s first reconcile with a `deferMs`: the servers it would start may wait instead. */
  let deferring = false;
  let deferTimer: ReturnType<typeof setTimeout> | undefined;
  let unsubscribe: (() => void) | undefined;
  const settleWaiters = new Set<{ done: () => boolean; wake: () => void }>();
  const signIns = new Map<string, { cancel(): void; done: Promise<void> }>();

  // One OAuth session per server and URL: a reconnect shares its refresh in flight and its tokens not yet written.
  const sessions = new Map<string, { key: string; session: OAuthSession }>();
  const sessionFor = (
    name: string,
    url: string,
    clientId: string | undefined,
    clientSecrets?: OAuthClientSecrets,
  ): OAuthSession | undefined => {
    if (!secrets) return undefined;
    const policy = oauthPolicy?.() ?? {};
    const client =
      clientId === undefined
        ? undefined
        : { clientId, clientSecret: clientSecrets?.secret, privateKey: clientSecrets?.privateKey };
    const clientMetadataUrl = policy.clientMetadataUrl ?? DEFAULT_CLIENT_METADATA_URL;
    const key = JSON.stringify([url, client, clientMetadataUrl, policy.clients]);
    const known = sessions.get(name);
    if (known?.key === key) return known.session;
    const organisationClient = (issuer: string): PreRegisteredClient | undefined =>
      policy.clients?.[issuer] ?? policy.clients?.[issuer.replace(/\/$/, '')];
    const session = createOAuthSession({
      secrets,
      serverName: name,
      serverUrl: url,
      client,
      organisationClient,
      clientMetadataUrl,
    });
    sessions.set(name, { key, session });
    return session;
  };
  const oauthSession = (launch: LaunchConfig): OAuthSession | undefined =>
    launch.kind === 'http' && !hasOwnAuthorization(launch)
      ? sessionFor(launch.name, launch.url, launch.oauthClientId, launch.oauthClient)
      : undefined;
  const signedIn = (server: ServerConfigView): boolean | undefined => {
    if (server.kind !== 'http' || !server.url) return undefined;
    try {
      return oauthSession(config.launchConfig(server.name))?.hasTokens();
    } catch {
      return undefined;
    }
  };

  const entrySettled = (entry: Entry, acceptCached: boolean): boolean => {
    if (entry.deferred) return acceptCached && entry.tools === 'last-launch';
    const { state } = entry.supervisor.status();
    return (
      state === 'error' ||
      state === 'stopped' ||
      state === 'needs-sign-in' ||
      (state === 'ready' && entry.tools === 'listed') ||
      (acceptCached && entry.tools === 'last-launch')
    );
  };
  const settled = ({ serverName, acceptCached = false }: WhenSettledOptions = {}): boolean => {
    if (phase !== 'running') return true;
    if (serverName === undefined) return [...entries.values()].every((entry) => entrySettled(entry, acceptCached));
    const entry = entries.get(serverName);
    return entry === undefined || entrySettled(entry, acceptCached);
  };
  const checkSettled = (): void => {
    for (const waiter of [...settleWaiters]) if (waiter.done()) waiter.wake();
  };
  /** The launch parameters with every secret value replaced: the cache file must not hold (hashes of) secrets. */
  const launchKeyOf = (name: string): string | undefined => {
    try {
      const secretValues = new Set(config.secretValues(name));
      const launch = JSON.stringify(config.launchConfig(name), (_key, value: unknown) =>
        typeof value === 'string' && secretValues.has(value) ? '\u0000secret' : value,
      );
      return createHash('sha256').update(launch).digest('hex');
    } catch {
      return undefined;
    }
  };
  /** A server about to start for the first time in this launch: its tools of the last launch, while it starts. */
  const seedFromCache = (entry: Entry, name: string): void => {
    const launchKey = launchKeyOf(name);
    entry.launchKey = launchKey;
    const cached = launchKey === undefined ? undefined : toolLists.get(name, launchKey);
    if (!cached) return;
    registry.seed(name, cached, entry.trusted);
    entry.tools = 'last-launch';
    entry.known = new Set(cached.map((tool) => tool.rawHash));
    emitTools(name, []);
  };

  const viewOf = (server: ServerConfigView): McpServerView => {
    const entry = entries.get(server.name);
    const status: SupervisorStatus = entry?.deferred
      ? { state: 'starting', since: startedAt, recentCrashes: 0 }
      : (entry?.supervisor.status() ?? { state: 'stopped', since: Date.now(), recentCrashes: 0 });
    const oauth = signedIn(server);
    return {
      ...server,
      ...(oauth !== undefined ? { signedIn: oauth } : {}),
      status: { ...status, toolCount: registry.list(server.name).length },
    };
  };
  const emitServer = (name: string): void => {
    const server = config.list().find((item) => item.name === name);
    if (server) events.emit('mcp.onDidChangeServer', { kind: 'updated', server: viewOf(server) });
  };
  const emitTools = (name: string, changed: string[]): void => {
    events.emit('mcp.onDidChangeTools', { serverName: name, toolCount: registry.list(name).length, changed });
  };
  const fingerprintOf = (server: ServerConfigView): string => {
    let launch: string;
    try {
      launch = JSON.stringify(config.launchConfig(server.name));
    } catch (error) {
      launch = (error as Error).message;
    }
    // Hashed: the launch parameters include secret values, which need not sit in memory twice.
    return createHash('sha256').update(`${server.enabled}\u0000${launch}`).digest('hex');
  };
  const entryFor = (server: ServerConfigView): Entry => {
    const existing = entries.get(server.name);
    if (existing) return existing;
    const logs = createLogRing();
    const name = server.name;
    const entry: Entry = {
      logs,
      fingerprint: fingerprintOf(server),
      trusted: server.trusted,
      logLevel: server.logLevel,
      roots: JSON.stringify(server.roots),
      tools: 'unknown',
      launchKey: undefined,
      known: new Set(),
      deferred: false,
      supervisor: createServerSupervisor({
        name,
        serverRequests,
        admit: (call) => door({ ...call, serverName: name }),
        launchConfig: () => config.launchConfig(name),
        secretValues: () => config.secretValues(name),
        oauth: (launch) => {
          const session = oauthSession(launch);
          return session ? { provider: session.provider, fetch: session.fetch } : undefined;
        },
        logLevel: () => entry.logLevel,
        roots: () => JSON.parse(entry.roots) as string[],
        onResourceUpdated: (uri) => events.emit('mcp.onDidUpdateResource', { serverName: name, uri }),
        logs,
        options: {
          runtime,
          clientVersion: options.clientVersion,
          initializeTimeoutMs: options.initializeTimeoutMs ?? MCP_DEFAULT_INITIALIZE_TIMEOUT_MS,
          restart: restartPolicy,
          maxMessageBytes: options.maxMessageBytes,
          stopGraceMs: options.stopGraceMs,
          startSlots,
          sandbox,
        },
        onBlock: (block, call) => onBlock?.(name, block, call),
        onStatus: () => {
          const { state } = entry.supervisor.status();
          if ((state === 'starting' || state === 'restarting') && entry.tools === 'listed') entry.tools = 'unknown';
          // Tools of the last launch are offered only while the server starts; one that failed offers none.
          if ((state === 'error' || state === 'stopped' || state === 'needs-sign-in') && entry.tools === 'last-launch')
            entry.tools = 'unknown';
          emitServer(name);
          checkSettled();
        },
        onTools: (listing) => {
          const outcome = registry.update(name, listing, entry.trusted, entry.known);
          for (const notice of outcome.notices) logs.push('host', notice);
          if (entry.launchKey !== undefined) toolLists.put(name, entry.launchKey, outcome.checked);
          entry.tools = 'listed';
          emitTools(name, outcome.changed);
          emitServer(name);
          checkSettled();
        },
        onToolsFailed: () => {
          // Tools nobody has seen this process list (the last launch's, or an earlier process's) are not offered
          // or run: the server has none until a listing succeeds (at its next list_changed or start). Nobody waits.
          registry.seed(name, [], entry.trusted);
          entry.tools = 'listed';
          emitTools(name, []);
          emitServer(name);
          checkSettled();
        },
      }),
    };
    entries.set(name, entry);
    return entry;
  };

  /** Starts the servers that wait for `deferMs`: it passed, or something needs them now. */
  const startDeferred = (): void => {
    deferring = false;
    clearTimeout(deferTimer);
    deferTimer = undefined;
    for (const entry of entries.values()) {
      if (!entry.deferred) continue;
      entry.deferred = false;
      if (phase === 'running') entry.supervisor.start();
    }
  };

  const reconcile = (): void => {
    if (phase !== 'running') return;
    const servers = config.list();
    for (const server of servers) {
      const isNew = !entries.has(server.name);
      const entry = entryFor(server);
      const fingerprint = fingerprintOf(server);
      if (entry.trusted !== server.trusted) {
        entry.trusted = server.trusted;
        registry.setTrusted(server.name, server.trusted);
        emitTools(
          server.name,
          registry
            .list(server.name)
            .filter((tool) => tool.previous)
            .map((tool) => tool.name),
        );
      }
      if (entry.logLevel !== server.logLevel) {
        entry.logLevel = server.logLevel;
        void entry.supervisor.setLogLevel(server.logLevel);
      }
      const roots = JSON.stringify(server.roots);
      if (entry.roots !== roots) {
        entry.roots = roots;
        void entry.supervisor.rootsChanged();
      }
      if (isNew || fingerprint !== entry.fingerprint) {
        entry.fingerprint = fingerprint;
        if (!isNew) {
          // Another launch now: the tools of the last one may no longer be this server's.
          entry.deferred = false;
          if (entry.tools === 'last-launch') {
            entry.tools = 'unknown';
            registry.seed(server.name, [], entry.trusted);
            emitTools(server.name, []);
          }
        }
        if (!server.enabled) void entry.supervisor.stop();
        else if (isNew || entry.supervisor.status().state === 'stopped') {
          if (isNew) seedFromCache(entry, server.name);
          else entry.launchKey = launchKeyOf(server.name);
          // Only local processes wait: an HTTP server's start costs this machine nothing.
          if (isNew && deferring && entry.tools === 'last-launch' && server.kind !== 'http') entry.deferred = true;
          else entry.supervisor.start();
        } else {
          entry.launchKey = launchKeyOf(server.name);
          void entry.supervisor.restart();
        }
      }
      emitServer(server.name);
    }
    const names = new Set(servers.map((server) => server.name));
    for (const [name, entry] of entries) {
      if (names.has(name)) continue;
      entries.delete(name);
      sessions.delete(name);
      void entry.supervisor.stop();
      registry.remove(name);
      toolLists.forget(name);
      events.emit('mcp.onDidChangeServer', { kind: 'removed', name });
    }
  };

  const require = (name: string): ServerConfigView => {
    const server = config.list().find((item) => item.name === name);
    if (!server) throw new WorkbenchError('not_found', `No MCP server is named "${name}".`, { name });
    return server;
  };

  /** A request beyond tools on a ready server; the server's own error comes back as `unavailable` with its words. */
  const mcpRequest = async <T>(
    name: string,
    work: (client: ReturnType<ServerSupervisor['session']>) => Promise<T>,
  ): Promise<T> => {
    startDeferred();
    const entry = entries.get(name);
    if (!entry) throw new WorkbenchError('unavailable', `The MCP server "${name}" is not running.`, { server: name });
    const client = entry.supervisor.session();
    try {
      return await work(client);
    } catch (error) {
      throw new WorkbenchError(
        'unavailable',
        `The MCP server "${name}" answered: ${error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error)}`,
        { server: name },
      );
    }
  };

  const toContract = (tool: RegisteredTool): McpTool => {
    const { validateOutput: _validator, ...rest } = tool;
    const entry = entries.get(tool.serverName);
    const ready = entry?.supervisor.status().state === 'ready';
    return { ...rest, available: ready && !tool.problem, ...(entry?.tools === 'last-launch' ? { cached: true } : {}) };
  };

  return {
    start({ deferMs } = {}) {
      if (phase !== 'idle') return;
      phase = 'running';
      startedAt = Date.now();
      try {
        config.adoptPlaintextSecrets();
      } catch {
        // The secret store cannot be written: the values keep working from settings.json and move at the next start.
      }
      const sandbox = sandboxDir(dataDir);
      try {
        if (config.list().some((server) => server.enabled && server.args?.includes(sandbox)))
          fs.mkdirSync(sandbox, { recursive: true, mode: 0o700 });
      } catch {
        // The Files server then fails to start, and its status says why.
      }
      unsubscribe = config.onDidChange(() => reconcile());
      deferring = deferMs !== undefined && deferMs > 0;
      reconcile();
      deferring = false;
      if ([...entries.values()].some((entry) => entry.deferred)) {
        deferTimer = setTimeout(startDeferred, deferMs);
        deferTimer.unref?.();
      }
    },
    async stop() {
      phase = 'stopped';
      clearTimeout(deferTimer);
      unsubscribe?.();
      checkSettled();
      await Promise.all([...entries.values()].map((entry) => entry.supervisor.stop()));
    },
    stopNow() {
      phase = 'stopped';
      clearTimeout(deferTimer);
      unsubscribe?.();
      for (const entry of entries.values()) entry.supervisor.killNow();
    },
    list: () => config.list().map(viewOf),
    server: (name) => viewOf(require(name)),
    async restart(name) {
      const server = require(name);
      if (!server.enabled)
        throw new WorkbenchError('invalid_input', `The MCP server "${name}" is disabled; enable it to start it.`, {
          name,
        });
      startDeferred();
      if (phase === 'running') await entryFor(server).supervisor.restart();
      return viewOf(require(name));
    },
    logs(name, limit) {
      require(name);
      const logs = entries.get(name)?.logs;
      return { name, lines: logs?.lines(limit) ?? [], dropped: logs?.dropped ?? 0 };
    },
    tools(serverName) {
      if (serverName !== undefined) require(serverName);
      return registry.list(serverName).map(toContract);
    },
    findTool(providerName) {
      const tool = registry.resolve(providerName);
      return tool ? toContract(tool) : undefined;
    },
    async callTool({
      serverName,
      toolName,
      args,
      signal,
      timeoutMs,
      chatId,
      exchangeId,
      toolCallId,
      onProgress,
      definitionHash,
    }) {
      startDeferred();
      const tool = registry.get(serverName, toolName);
      if (!tool) {
        require(serverName);
        throw new WorkbenchError('not_found', `The MCP server "${serverName}" has no tool named "${toolName}".`, {
          server: serverName,
          tool: toolName,
        });
      }
      if (tool.problem)
        throw new WorkbenchError(
          'invalid_input',
          `The tool "${toolName}" of "${serverName}" cannot be used: ${tool.problem}`,
          { server: serverName, tool: toolName },
        );
      const entry = entries.get(serverName);
      if (!entry)
        throw new WorkbenchError('unavailable', `The MCP server "${serverName}" is not running.`, {
          server: serverName,
        });
      if (entry.tools === 'last-launch')
        throw new WorkbenchError('unavailable', `The MCP server "${serverName}" has not listed its tools yet.`, {
          server: serverName,
        });
      if (definitionHash !== undefined && tool.definitionHash !== definitionHash) {
        throw new WorkbenchError(
          'conflict',
          `The tool "${toolName}" of "${serverName}" changed after the call was decided (the server now lists another definition), so it did not run.`,
          { server: serverName, tool: toolName },
        );
      }
      // Returned, not awaited in a try: an async frame around the call costs more than its bookkeeping (mcp-call-overhead).
      return entry.supervisor.callTool(toolName, args, {
        timeoutMs: timeoutMs ?? config.callTimeoutMs(serverName),
        signal,
        validateOutput: tool.validateOutput,
        chatId,
        exchangeId,
        toolCallId,
        definitionHash,
        onProgress,
      });
    },
    async signIn(name) {
      require(name);
      startDeferred();
      let launch: LaunchConfig;
      try {
        launch = config.launchConfig(name);
      } catch (error) {
        throw new WorkbenchError('unavailable', (error as Error).message, { name });
      }
      const session = oauthSession(launch);
      if (!session) {
        throw new WorkbenchError(
          'invalid_input',
          launch.kind === 'http'
            ? `"${name}" sends its own Authorization header; it does not sign in with OAuth.`
            : `"${name}" is not an HTTP server; only HTTP servers sign in.`,
          { name },
        );
      }
      signIns.get(name)?.cancel();
      const entry = phase === 'running' ? entries.get(name) : undefined;
      let started;
      try {
        started = await session.signIn({ open: (url) => openSignInPage?.(url) ?? false });
      } catch (error) {
        const message = `Sign-in could not start: ${describeSignInError(error)}`;
        entry?.logs.push('host', message);
        entry?.supervisor.noteSignIn(message);
        throw new WorkbenchError('unavailable', message, { name });
      }
      entry?.logs.push(
        'host',
        `Sign-in started${started.openedBrowser ? ' in the browser' : ''}: waiting for the browser to come back.`,
      );
      entry?.supervisor.noteSignIn(
        started.openedBrowser ? 'Finish signing in in your browser.' : 'Waiting for you to sign in.',
      );
      const pending = { cancel: started.cancel, done: started.done };
      signIns.set(name, pending);
      started.done.then(
        () => {
          if (signIns.get(name) === pending) signIns.delete(name);
          entry?.logs.push('host', 'Signed in.');
          // Tokens are stored: connect again now (the host may have stopped or the server been disabled meanwhile).
          if (
            phase === 'running' &&
            entries.get(name) === entry &&
            config.list().find((item) => item.name === name)?.enabled
          )
            void entry?.supervisor.restart();
          else emitServer(name);
        },
        (error: unknown) => {
          if (signIns.get(name) === pending) signIns.delete(name);
          const message = `Sign-in failed: ${describeSignInError(error)}`;
          entry?.logs.push('host', message);
          entry?.supervisor.noteSignIn(message);
        },
      );
      return { name, authorizationUrl: started.authorizationUrl, openedBrowser: started.openedBrowser };
    },
    async awaitSignIn(name) {
      require(name);
      const pending = signIns.get(name);
      if (!pending) throw new WorkbenchError('not_found', `No sign-in is in progress for "${name}".`, { name });
      try {
        await pending.done;
      } catch (error) {
        throw new WorkbenchError('unauthorized', `Sign-in failed: ${describeSignInError(error)}`, { name });
      }
    },
    async signInAsClient(name) {
      const server = require(name);
      startDeferred();
      const session = oauthSession(config.launchConfig(name));
      if (!session) throw new WorkbenchError('invalid_input', `"${name}" does not sign in with OAuth.`, { name });
      const entry = phase === 'running' ? entries.get(name) : undefined;
      try {
        await session.signInAsClient();
      } catch (error) {
        const message = `Sign-in with client credentials failed: ${describeSignInError(error)}`;
        entry?.logs.push('host', message);
        entry?.supervisor.noteSignIn(message);
        throw new WorkbenchError('unauthorized', message, { name });
      }
      entry?.logs.push('host', 'Signed in with client credentials.');
      if (phase === 'running' && server.enabled) await entries.get(name)?.supervisor.restart();
      else emitServer(name);
      return viewOf(require(name));
    },
    async signOut(name) {
      const server = require(name);
      startDeferred();
      const launch = config.launchConfig(name);
      oauthSession(launch)?.signOut();
      if (phase === 'running' && server.enabled) await entries.get(name)?.supervisor.restart();
      return viewOf(require(name));
    },
    async resources(serverName) {
      const server = require(serverName);
      return mcpRequest(server.name, (client) => listResources(server.name, client, config.callTimeoutMs(server.name)));
    },
    async readResource(serverName, uri) {
      const server = require(serverName);
      return mcpRequest(server.name, (client) =>
        readResource(server.name, client, uri, config.callTimeoutMs(server.name)),
      );
    },
    async appView(serverName, toolName) {
      const server = require(serverName);
      const uri = registry.get(server.name, toolName)?.ui?.resourceUri;
      if (!uri)
        throw new WorkbenchError('not_found', `The tool "${toolName}" of "${server.name}" has no view.`, {
          server: server.name,
        });
      const view = await mcpRequest(server.name, (client) =>
        readAppView(server.name, client, uri, config.callTimeoutMs(server.name)),
      );
      for (const notice of view.notices) entries.get(server.name)?.logs.push('host', `View ${uri}: ${notice}`);
      return view;
    },
    async subscribeResource(serverName, uri, on) {
      const server = require(serverName);
      return mcpRequest(server.name, async (client) => {
        if (!client.getServerCapabilities()?.resources?.subscribe) return { subscribed: false };
        if (on) await client.subscribeResource({ uri }, { timeout: config.callTimeoutMs(server.name) });
        else await client.unsubscribeResource({ uri }, { timeout: config.callTimeoutMs(server.name) });
        return { subscribed: on };
      });
    },
    async prompts(serverName) {
      if (serverName !== undefined) {
        const server = require(serverName);
        return {
          prompts: await mcpRequest(server.name, (client) =>
            listPrompts(server.name, client, config.callTimeoutMs(server.name)),
          ),
        };
      }
      startDeferred();
      const ready = [...entries]
        .filter(([, entry]) => entry.supervisor.status().state === 'ready')
        .map(([name]) => name);
      const lists = await Promise.all(
        ready.map((name) =>
          mcpRequest(name, (client) => listPrompts(name, client, config.callTimeoutMs(name))).catch(() => []),
        ),
      );
      return { prompts: lists.flat() };
    },
    async getPrompt(serverName, prompt, args) {
      const server = require(serverName);
      return mcpRequest(server.name, (client) =>
        getPrompt(server.name, client, prompt, args, config.callTimeoutMs(server.name)),
      );
    },
    async completePromptArgument(serverName, prompt, argument, value, context) {
      const server = require(serverName);
      return mcpRequest(server.name, (client) =>
        completePromptArgument(client, prompt, argument, value, context, config.callTimeoutMs(server.name)),
      );
    },
    whenSettled(wanted = {}) {
      // Whoever waits for servers needs them: those still waiting for `deferMs` start now.
      startDeferred();
      const { signal, timeoutMs } = wanted;
      if (settled(wanted) || signal?.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = (): void => {
          settleWaiters.delete(waiter);
          clearTimeout(timer);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        const waiter = { done: () => settled(wanted), wake };
        const timer = setTimeout(wake, timeoutMs ?? options.initializeTimeoutMs ?? MCP_DEFAULT_INITIALIZE_TIMEOUT_MS);
        signal?.addEventListener('abort', wake, { once: true });
        settleWaiters.add(waiter);
      });
    },
  };
}

function describeSignInError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\.$/, '') + '.';
}
