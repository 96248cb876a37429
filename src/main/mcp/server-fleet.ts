import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MCP_DEFAULT_INITIALIZE_TIMEOUT_MS, type McpLogLevel, type McpServerView } from '../../shared/mcp';
import { WorkbenchError } from '../errors';
import { sandboxDir } from '../settings/default-servers';
import { createLogRing, type LogRing } from './log-ring';
import type { McpHostDependencies, WhenSettledOptions } from './mcp-host';
import { detectNodeRuntime, withCompileCache } from './node-runtime';
import type { ServerOAuthSessions } from './oauth/server-sessions';
import { appInstallation, type SandboxHost } from './sandbox';
import { NO_SANDBOX_LIMITS } from './sandbox/limits';
import type { ServerConfigView } from './server-config-service';
import {
  createServerSupervisor,
  DEFAULT_RESTART_POLICY,
  type ServerSupervisor,
  type SupervisorStatus,
} from './server-supervisor';
import { createStartSlots } from './start-slots';
import { createProbeVerdicts } from './probe-verdicts';
import { createToolListCache } from './tool-list-cache';
import { createToolRegistry, type ToolRegistry } from './tool-registry';

/** One server of the settings, as the host runs it. */
export interface FleetEntry {
  supervisor: ServerSupervisor;
  logs: LogRing;
  fingerprint: string;
  trusted: boolean;
  /** What the running server was last told: changes are sent without a restart. */
  logLevel: McpLogLevel;
  roots: string;
  /** The server's call timeout in the settings as of their last change: read on every call without a look-up. */
  callTimeoutMs: number;
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

/**
 * The servers of the settings, running: their lifecycle (start, deferred start, reconcile with every settings
 * change, restart, stop), their tools as they list them, their status views and events, and who waits for them.
 */
export interface ServerFleet {
  readonly registry: ToolRegistry;
  start(options?: { deferMs?: number }): void;
  stop(): Promise<void>;
  stopNow(): void;
  /** The server's settings; throws `not_found`. */
  require(name: string): ServerConfigView;
  viewOf(server: ServerConfigView): McpServerView;
  emitServer(name: string): void;
  /** Between `start` and `stop`. */
  isRunning(): boolean;
  /** The server's entry while the host runs, else undefined. */
  running(name: string): FleetEntry | undefined;
  /** The server's entry, whether or not the host still runs. */
  entry(name: string): FleetEntry | undefined;
  /** The names of the servers that are ready now. */
  ready(): string[];
  restart(server: ServerConfigView): Promise<void>;
  /** Starts the servers that wait for `deferMs`: it passed, or something needs them now. */
  startDeferred(): void;
  whenSettled(options?: WhenSettledOptions): Promise<void>;
}

export function createServerFleet({
  config,
  events,
  dataDir,
  options,
  serverRequests,
  door,
  onBlock,
  oauth,
}: Pick<McpHostDependencies, 'config' | 'events' | 'dataDir' | 'options' | 'serverRequests' | 'door' | 'onBlock'> & {
  oauth: ServerOAuthSessions;
}): ServerFleet {
  const registry = createToolRegistry();
  const entries = new Map<string, FleetEntry>();
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
  const verdicts = createProbeVerdicts();
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

  const entrySettled = (entry: FleetEntry, acceptCached: boolean): boolean => {
    if (entry.deferred) return acceptCached && entry.tools === 'last-launch';
    const { state } = entry.supervisor.status();
    return (
      state === 'error' ||
      state === 'stopped' ||
      state === 'needs-sign-in' ||
      state === 'needs-acceptance' ||
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
  const seedFromCache = (entry: FleetEntry, name: string): void => {
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
    const signedIn = oauth.signedIn(server);
    return {
      ...server,
      ...(signedIn !== undefined ? { signedIn } : {}),
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
  const entryFor = (server: ServerConfigView): FleetEntry => {
    const existing = entries.get(server.name);
    if (existing) return existing;
    const logs = createLogRing();
    const name = server.name;
    const entry: FleetEntry = {
      logs,
      fingerprint: fingerprintOf(server),
      trusted: server.trusted,
      logLevel: server.logLevel,
      roots: JSON.stringify(server.roots),
      callTimeoutMs: server.callTimeoutMs,
      tools: 'unknown',
      launchKey: undefined,
      known: new Set(),
      deferred: false,
      supervisor: createServerSupervisor({
        name,
        serverRequests,
        admit: door,
        launchConfig: () => config.launchConfig(name),
        secretValues: () => config.secretValues(name),
        oauth: (launch) => {
          const session = oauth.forLaunch(launch);
          return session
            ? { provider: session.provider, fetch: session.fetch, onlyAsksForSignIn: session.onlyAsksForSignIn }
            : undefined;
        },
        logLevel: () => entry.logLevel,
        roots: () => JSON.parse(entry.roots) as string[],
        // What the person has not accepted does not run (docs/user/approvals.md, "A server's identity").
        accepted: () => config.list().find((item) => item.name === name)?.identityChanged === undefined,
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
          verdicts,
        },
        onBlock: (block, call) => onBlock?.(name, block, call),
        onStatus: () => {
          const { state } = entry.supervisor.status();
          if ((state === 'starting' || state === 'restarting') && entry.tools === 'listed') entry.tools = 'unknown';
          // Tools of the last launch are offered only while the server starts; one that failed offers none.
          if (
            (state === 'error' || state === 'stopped' || state === 'needs-sign-in' || state === 'needs-acceptance') &&
            entry.tools === 'last-launch'
          )
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

  const startDeferred = (): void => {
    // Nothing waits once the deferred servers started: every tool call asks, so it returns at once then.
    if (!deferring && deferTimer === undefined) return;
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
      entry.callTimeoutMs = server.callTimeoutMs;
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
        else if (isNew || ['stopped', 'needs-acceptance'].includes(entry.supervisor.status().state)) {
          // A server not accepted offers no tools of an earlier launch: it does not start (the supervisor holds it).
          if (isNew && !server.identityChanged) seedFromCache(entry, server.name);
          else entry.launchKey = launchKeyOf(server.name);
          // Only local processes wait: an HTTP server's start costs this machine nothing.
          if (isNew && deferring && entry.tools === 'last-launch' && server.kind !== 'http') entry.deferred = true;
          else entry.supervisor.start();
        } else {
          entry.launchKey = launchKeyOf(server.name);
          void entry.supervisor.restart();
        }
      } else if (server.enabled) {
        // The same launch, accepted or not any more (accepted in the app, or its record edited by hand).
        const { state } = entry.supervisor.status();
        if (server.identityChanged && state !== 'stopped' && state !== 'needs-acceptance') void entry.supervisor.hold();
        else if (!server.identityChanged && state === 'needs-acceptance') entry.supervisor.start();
      }
      emitServer(server.name);
    }
    const names = new Set(servers.map((server) => server.name));
    for (const [name, entry] of entries) {
      if (names.has(name)) continue;
      entries.delete(name);
      oauth.forget(name);
      void entry.supervisor.stop();
      registry.remove(name);
      toolLists.forget(name);
      events.emit('mcp.onDidChangeServer', { kind: 'removed', name });
    }
  };

  return {
    registry,
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
    require(name) {
      const server = config.list().find((item) => item.name === name);
      if (!server) throw new WorkbenchError('not_found', `No MCP server is named "${name}".`, { name });
      return server;
    },
    viewOf,
    emitServer,
    isRunning: () => phase === 'running',
    running: (name) => (phase === 'running' ? entries.get(name) : undefined),
    entry: (name) => entries.get(name),
    ready: () => [...entries].filter(([, entry]) => entry.supervisor.status().state === 'ready').map(([name]) => name),
    async restart(server) {
      startDeferred();
      if (phase === 'running') await entryFor(server).supervisor.restart();
    },
    startDeferred,
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
