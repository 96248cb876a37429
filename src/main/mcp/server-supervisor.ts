import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpServerStatus } from '../../shared/mcp';
import type { McpToolResult } from '../../shared/mcp-result';
import { WorkbenchError } from '../errors';
import type * as ConnectModule from './connect';
import type { Connection } from './connect';
import type { LogRing } from './log-ring';
import type { NodeRuntime } from './node-runtime';
import type { LaunchConfig } from './server-config-service';
import type { SchemaValidator } from './schema-check';
import { LenientCallToolResultSchema, normaliseToolResult, protocolErrorResult } from './tool-result';

/**
 * The MCP client side (the SDK's Client and transports, cross-spawn) loads with the first server start, not with the
 * host: a command or a launch that starts no server never pays for it (docs/dev/benchmarks.md, cli-start).
 */
let connectModule: typeof ConnectModule | undefined;
const loadConnect = async (): Promise<typeof ConnectModule> => (connectModule ??= await import('./connect'));
/** How an error reads in a log line; only errors of a connection (so the module is loaded) come here. */
const describeError = (error: unknown): string => (connectModule ? connectModule.describeError(error) : String(error));

export interface RestartPolicy {
  /** The first restart waits this long; each further crash within the window doubles it, up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** After this many crashes within windowMs the server stays in `error` until the user restarts it. */
  maxCrashes: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 1000, maxDelayMs: 30_000, maxCrashes: 5, windowMs: 60_000 };

export interface SupervisorOptions {
  runtime: NodeRuntime;
  clientVersion: string;
  initializeTimeoutMs: number;
  restart: RestartPolicy;
  maxMessageBytes?: number | undefined;
  stopGraceMs?: number | undefined;
}

export interface SupervisorDependencies {
  name: string;
  /** Read at every start, so an edit takes effect at the next one; throws when a secret is missing. */
  launchConfig(): LaunchConfig;
  secretValues(): string[];
  logs: LogRing;
  options: SupervisorOptions;
  onStatus(): void;
  /** A fresh `tools/list` answer (the raw tools), after every connect and every list_changed notification. */
  onTools(tools: unknown[]): void;
}

export type SupervisorStatus = Omit<McpServerStatus, 'toolCount'>;

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  validateOutput?: SchemaValidator | undefined;
}

/**
 * One server's life: start, ready, crash, restart with backoff, give up after too many crashes,
 * stop. Each start is a new generation; whatever an older generation reports late is ignored,
 * so a stopped server never comes back by itself.
 */
export interface ServerSupervisor {
  status(): SupervisorStatus;
  /** Starts a stopped server (or one in `error`); does nothing while it starts or runs. */
  start(): void;
  /** The user's restart: forgets earlier crashes, stops what runs and starts again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  killNow(): void;
  callTool(toolName: string, args: Record<string, unknown>, options: CallOptions): Promise<McpToolResult>;
}

const ListToolsPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const MAX_TOOL_PAGES = 100;

export function createServerSupervisor(deps: SupervisorDependencies): ServerSupervisor {
  const { name, logs, options } = deps;
  let status: SupervisorStatus = { state: 'stopped', since: Date.now(), recentCrashes: 0 };
  let generation = 0;
  let connection: Connection | undefined;
  /** The attempt in progress, so that stop() can end a server that is still starting. */
  let starting: Pick<Connection, 'close' | 'killNow'> | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let crashes: number[] = [];
  let refreshing = false;
  let refreshAgain = false;

  const setStatus = (next: Omit<SupervisorStatus, 'since' | 'recentCrashes'>): void => {
    status = { ...next, since: Date.now(), recentCrashes: crashes.length };
    deps.onStatus();
  };

  const launch = async (gen: number): Promise<void> => {
    setStatus({ state: 'starting' });
    let config: LaunchConfig;
    try {
      config = deps.launchConfig();
    } catch (error) {
      setStatus({ state: 'error', message: (error as Error).message });
      return;
    }
    logs.redact(deps.secretValues());
    logs.push('host', `Starting: ${config.kind === 'stdio' ? [config.package ?? config.command, ...config.args].join(' ') : config.url}`);
    let opened: Connection;
    let connector: typeof ConnectModule | undefined;
    try {
      connector = await loadConnect();
      opened = await connector.connect(config, {
        runtime: options.runtime,
        initializeTimeoutMs: options.initializeTimeoutMs,
        clientVersion: options.clientVersion,
        maxMessageBytes: options.maxMessageBytes,
        stopGraceMs: options.stopGraceMs,
        log: (source, text) => logs.push(source, text),
        onUnexpectedClose: (reason) => crashed(gen, reason),
        onToolsChanged: () => void refreshTools(gen),
        onStarting: (handle) => {
          if (gen === generation) starting = handle;
        },
      });
    } catch (error) {
      if (gen === generation) starting = undefined;
      if (gen !== generation) return;
      const message = error instanceof Error ? error.message : String(error);
      if (connector && error instanceof connector.ConnectError && error.permanent) {
        logs.push('host', message);
        setStatus({ state: 'error', message });
      } else {
        crashed(gen, message);
      }
      return;
    }
    if (gen !== generation) {
      await opened.close();
      return;
    }
    starting = undefined;
    connection = opened;
    const info = opened.client.getServerVersion();
    setStatus({
      state: 'ready',
      ...(opened.pid !== undefined ? { pid: opened.pid } : {}),
      transport: opened.transport,
      ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
    });
    await refreshTools(gen);
  };

  const crashed = (gen: number, reason: string): void => {
    if (gen !== generation) return;
    connection = undefined;
    starting = undefined;
    logs.push('host', reason);
    const now = Date.now();
    crashes = [...crashes.filter((time) => now - time < options.restart.windowMs), now];
    if (crashes.length >= options.restart.maxCrashes) {
      setStatus({
        state: 'error',
        message: `${reason} It failed ${crashes.length} times within ${Math.round(options.restart.windowMs / 1000)} s, so it stays stopped until you restart it.`,
      });
      return;
    }
    const delay = Math.min(options.restart.initialDelayMs * 2 ** (crashes.length - 1), options.restart.maxDelayMs);
    setStatus({ state: 'restarting', message: `${reason} Restarting in ${delay < 1000 ? `${delay} ms` : `${Math.round(delay / 1000)} s`}.` });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (gen !== generation) return;
      void launch(++generation);
    }, delay);
  };

  const refreshTools = async (gen: number): Promise<void> => {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = true;
    try {
      do {
        refreshAgain = false;
        const current = connection;
        if (!current || gen !== generation) return;
        if (!current.client.getServerCapabilities()?.tools) {
          deps.onTools([]);
          return;
        }
        try {
          const tools = await listTools(current, options.initializeTimeoutMs);
          if (gen === generation) deps.onTools(tools);
        } catch (error) {
          if (gen === generation && connection === current) logs.push('host', `Could not list the tools: ${describeError(error)}`);
        }
      } while (refreshAgain);
    } finally {
      refreshing = false;
    }
  };

  const halt = async (): Promise<void> => {
    generation++;
    clearTimeout(restartTimer);
    restartTimer = undefined;
    const open = [connection, starting];
    connection = undefined;
    starting = undefined;
    await Promise.all(open.map((item) => item?.close()));
  };

  return {
    status: () => status,
    start() {
      if (status.state === 'starting' || status.state === 'ready' || status.state === 'restarting') return;
      void launch(++generation);
    },
    async restart() {
      crashes = [];
      const gen = generation + 1;
      setStatus({ state: 'restarting', message: 'Restarting at your request.' });
      await halt();
      if (gen === generation) await launch(gen);
    },
    async stop() {
      const wasStopped = status.state === 'stopped';
      // It serves nothing from this moment; the status says so before its process has finished exiting.
      const halted = halt();
      if (!wasStopped) setStatus({ state: 'stopped' });
      await halted;
      if (!wasStopped) logs.push('host', 'Stopped.');
    },
    killNow() {
      generation++;
      clearTimeout(restartTimer);
      connection?.killNow();
      starting?.killNow();
      connection = undefined;
      starting = undefined;
    },
    async callTool(toolName, args, { timeoutMs, signal, validateOutput }) {
      const current = connection;
      if (!current || status.state !== 'ready') {
        throw new WorkbenchError('unavailable', `The MCP server "${name}" is not ready (${status.state}${status.message ? `: ${status.message}` : ''}).`, { server: name });
      }
      const gen = generation;
      try {
        // What Client.callTool does, with a result schema that keeps parts of unknown kinds (its own would reject
        // the whole result). The SDK sends notifications/cancelled when the timeout expires or the signal aborts.
        const raw = await current.client.request(
          { method: 'tools/call', params: { name: toolName, arguments: args } },
          LenientCallToolResultSchema,
          { timeout: timeoutMs, signal },
        );
        const problem = raw.structuredContent && !raw.isError ? validateOutput?.(raw.structuredContent) : undefined;
        return normaliseToolResult(raw, { outputSchemaProblem: problem });
      } catch (error) {
        const what = `"${toolName}" on "${name}"`;
        if (signal?.aborted) throw new WorkbenchError('cancelled', `The call to ${what} was cancelled; the server was told to stop it.`);
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          throw new WorkbenchError('timeout', `${what} did not finish within ${Math.round(timeoutMs / 100) / 10} s; the call was cancelled.`);
        }
        const ended = current.endReason();
        if (ended || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
          throw new WorkbenchError('unavailable', `The server "${name}" stopped during the call to "${toolName}": it ${ended ?? 'closed the connection'}.`);
        }
        if (error instanceof McpError) return protocolErrorResult(error.code, error.message.replace(/^MCP error -?\d+: /, ''));
        if (error instanceof z.core.$ZodError) {
          throw new WorkbenchError('unavailable', `${what} answered with something that is not an MCP tool result: ${z.prettifyError(error)}`);
        }
        // No answer over HTTP: the session is gone; reconnect as after a crash.
        if (current.transport !== 'stdio') crashed(gen, `The call to "${toolName}" failed: ${describeError(error)}.`);
        throw new WorkbenchError('unavailable', `The call to ${what} failed: ${describeError(error)}`);
      }
    },
  };
}

async function listTools(connection: Connection, timeoutMs: number): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await connection.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsPageSchema, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
