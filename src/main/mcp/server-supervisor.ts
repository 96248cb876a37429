import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { pathToFileURL } from 'node:url';
import type { McpLogLevel, McpServerStatus } from '../../shared/mcp';
import type { ToolProgress } from '../../shared/messages';
import type { McpToolResult } from '../../shared/mcp-result';
import { WorkbenchError } from '../errors';
import type * as ConnectModule from './connect';
import type { Connection, ConnectOptions } from './connect';
import type { LogRing } from './log-ring';
import { CallAbort } from './call-abort';
import type { CallLegOptions, McpSession } from './mcp-session';
import type { StartSlots } from './start-slots';
import type { NodeRuntime } from './node-runtime';
import type { LaunchConfig } from './server-config-service';
import type { SandboxBlock, SandboxHost } from './sandbox';
import type { SandboxBlockView } from '../../shared/mcp-result';
import type { SchemaValidator } from './schema-check';
import { loadSdkTypes, sdkTypes } from './sdk-types';
import type { BoundServerRequests, ServerRequestHandler } from './server-request-routing';
import type { ProbeVerdicts } from './probe-verdicts';
import { createCallClocks, type CallClocks } from './call-clock';
import { CallRefused, type DoorCall } from './call-door';
import {
  callToolAsTask,
  cancelTask,
  followTask,
  FollowTakenOver,
  isUnaskedTaskHandle,
  modernTasksOf,
  needsTasksExtension,
  tasksExtensionRefusal,
  unaskedTaskHandle,
  type TaskCallOptions as TaskRunOptions,
} from './tool-tasks';
import {
  UncheckedResultSchema,
  type LenientCallToolResult,
  asCallToolResult,
  normaliseToolResult,
  pageDeclinedResult,
  protocolErrorResult,
} from './tool-result';

/**
 * The MCP client side (the SDK's Client and transports, cross-spawn) loads with the first server start, not with the
 * host: a command or a launch that starts no server never pays for it (docs/dev/benchmarks.md, cli-start).
 */
let connectModule: typeof ConnectModule | undefined;
const loadConnect = async (): Promise<typeof ConnectModule> => {
  await loadSdkTypes();
  return (connectModule ??= await import('./connect'));
};
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

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 60_000,
};

export interface SupervisorOptions {
  runtime: NodeRuntime;
  clientVersion: string;
  initializeTimeoutMs: number;
  restart: RestartPolicy;
  maxMessageBytes?: number | undefined;
  stopGraceMs?: number | undefined;
  /** Shared by a host's servers: how many local processes start at once (start-slots.ts). None: no limit. */
  startSlots?: StartSlots | undefined;
  /** Where and how stdio servers are contained (docs/user/sandbox.md); none: they run unconfined. */
  sandbox?: SandboxHost | undefined;
  /** Shared by a host's servers: what each answered `server/discover` at its last start (probe-verdicts.ts). */
  verdicts?: ProbeVerdicts | undefined;
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
  /** A `tools/list` that failed (its reason is in the log): the server's tools are not known. */
  onToolsFailed(): void;
  /** Who answers the server's sampling and elicitation requests (and a -32042 "open this URL first"). */
  serverRequests?: ServerRequestHandler | undefined;
  /**
   * Asked right before every `tools/call` request is sent, retries included (call-door.ts); a throw keeps the call
   * from the server and is what `callTool` throws.
   */
  admit(call: DoorCall): void;
  /** OAuth for an HTTP server at this launch's URL (src/main/mcp/oauth); none for stdio or a server with its own Authorization header. */
  oauth?(config: LaunchConfig): ConnectOptions['oauth'];
  /** The level the server is asked to log at (`logging/setLevel`), read at every connect. */
  logLevel(): McpLogLevel;
  /** The folders the server is told about (MCP roots), read whenever it asks. */
  roots(): string[];
  /**
   * Whether the person accepted what the server runs now (docs/user/approvals.md, "A server's identity"). Asked right
   * before every spawn or connect, restarts included: until it says yes, nothing starts and the server waits in
   * `needs-acceptance`. None: always.
   */
  accepted?(): boolean;
  /**
   * A call made while the server waits in `needs-acceptance` (or starts or restarts on its way there) and the person
   * is being asked about it: resolves once
   * the call may go on, throws why not (acceptance-questions.ts); undefined when no question is open.
   */
  afterAcceptance?(toolName: string, options: CallOptions): Promise<void> | undefined;
  /** A subscribed resource changed on the server. */
  onResourceUpdated?(uri: string): void;
  /** The sandbox refused the server something; `call` is the tool call running then, when exactly one was. */
  onBlock?(block: SandboxBlock, call: { toolName: string; chatId?: string | undefined } | undefined): void;
}

export type SupervisorStatus = Omit<McpServerStatus, 'toolCount'>;

/**
 * A task call: no timeout (it runs until it ends or the person cancels it), its state reported as it changes. On
 * 2026-07-28 `untilTask` stops it while the server has not answered with a task yet (modern-tasks.ts).
 */
export type TaskCallOptions = Omit<CallOptions, 'timeoutMs' | 'signal' | 'afterUrlElicitation'> &
  TaskRunOptions & { untilTask?: AbortSignal | undefined };

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  validateOutput?: SchemaValidator | undefined;
  chatId?: string | undefined;
  /** Who the call is for, as the door's audit row names it (call-door.ts). */
  exchangeId?: string | undefined;
  toolCallId?: string | undefined;
  definitionHash?: string | undefined;
  /** Set on the one retry after a -32042: a second one is reported, not asked again. */
  afterUrlElicitation?: boolean | undefined;
  /** The server's `notifications/progress` for this call; each one also restarts the call's timeout. */
  onProgress?: ((progress: ToolProgress) => void) | undefined;
  /**
   * Given for a server that offers the 2026-07-28 tasks extension (`offersTasks`): the call goes out declaring it, and
   * the server decides whether it runs as a task (docs/dev/protocol-2026.md#tasks-on-2026-07-28).
   */
  task?: TaskRunOptions | undefined;
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
  /** While the server waits for a sign-in: says what the sign-in is doing (waiting for the browser, why it failed). */
  noteSignIn(message: string): void;
  /** What it runs is no longer accepted: stops what runs, and waits in `needs-acceptance` until `start`. */
  hold(): Promise<void>;
  stop(): Promise<void>;
  killNow(): void;
  callTool(toolName: string, args: Record<string, unknown>, options: CallOptions): Promise<McpToolResult>;
  /** The call made as an MCP task, past the same door (tool-tasks.ts; docs/user/mcp-servers.md#tasks). */
  callToolTask(toolName: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<McpToolResult>;
  /**
   * Follows a task created before the host restarted (`tasks/get`, then `tasks/result`; tool-tasks.ts followTask). No
   * `tools/call` is sent; each leg passes the door with the call's arguments (`args`, as the chat keeps its record).
   * Without them (`undefined`: the record is gone) nothing could be checked, so the task is cancelled on the server
   * and the follow refused (`not_found`, the reason in words).
   */
  followTask(
    toolName: string,
    taskId: string,
    args: Record<string, unknown> | undefined,
    options: TaskCallOptions,
  ): Promise<McpToolResult>;
  /** Whether the server, ready, speaks 2026-07-28 and offers the tasks extension (docs/dev/protocol-2026.md). */
  offersTasks(): boolean;
  /** Asks the running server to log at this level; does nothing when it offers no logging. */
  setLogLevel(level: McpLogLevel): Promise<void>;
  /** Tells the running server that its roots changed (`notifications/roots/list_changed`). */
  rootsChanged(): Promise<void>;
  /** The live MCP session, for requests beyond tools (resources, prompts); throws `unavailable` when not ready. */
  session(): McpSession;
}

const SIGN_IN_MESSAGE = 'Sign in to use this server.';
export const ACCEPT_MESSAGE =
  'Waiting for you to accept what it runs: it does not start until you do (Use my settings for what it runs now, or workbench servers accept).';

const ListToolsPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const MAX_TOOL_PAGES = 100;
/** Distinct blocks listed on one tool call; more stay in the server's log and the audit log (docs/user/sandbox.md#blocks). */
const MAX_BLOCKS_PER_CALL = 50;

/** The states a server is in while the person is asked about what it runs now (acceptance-questions.ts). */
const ASKED_ABOUT_STATES: ReadonlySet<string> = new Set(['needs-acceptance', 'starting', 'restarting']);

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
  // A call's timeout stands still while the server's own request waits for the person or the model (call-clock.ts).
  const clocks = createCallClocks();
  /** The tool calls in flight, so that a block the sandbox reports can be put with the one call running then. */
  const running = new Map<number, { toolName: string; chatId?: string | undefined; blocks: SandboxBlockView[] }>();
  let nextCall = 0;
  const serverRequests = deps.serverRequests && holdingClocks(deps.serverRequests, name, clocks);

  const setStatus = (next: Omit<SupervisorStatus, 'since' | 'recentCrashes'>): void => {
    status = { ...next, since: Date.now(), recentCrashes: crashes.length };
    deps.onStatus();
  };

  const mayStart = (): boolean => deps.accepted?.() ?? true;
  const waitForAcceptance = (): void => {
    if (status.state !== 'needs-acceptance') logs.push('host', 'Not started: what it runs is not accepted yet.');
    setStatus({ state: 'needs-acceptance', message: ACCEPT_MESSAGE });
  };

  const launch = async (gen: number): Promise<void> => {
    if (!mayStart()) return waitForAcceptance();
    setStatus({ state: 'starting' });
    let config: LaunchConfig;
    try {
      config = deps.launchConfig();
    } catch (error) {
      setStatus({ state: 'error', message: (error as Error).message });
      return;
    }
    logs.redact(deps.secretValues());
    logs.push(
      'host',
      `Starting: ${config.kind === 'stdio' ? [config.package ?? config.command, ...config.args].join(' ') : config.url}`,
    );
    let opened: Connection;
    let connector: typeof ConnectModule | undefined;
    try {
      connector = await loadConnect();
      const release = config.kind === 'stdio' && options.startSlots ? await options.startSlots.take() : undefined;
      if (gen !== generation) {
        // Stopped or restarted while waiting for its turn: this attempt never spawned.
        release?.();
        return;
      }
      // The last moment before a process is spawned or a connection opened: what it runs may have changed meanwhile.
      if (!mayStart()) {
        release?.();
        return waitForAcceptance();
      }
      opened = await connector
        .connect(config, {
          runtime: options.runtime,
          initializeTimeoutMs: options.initializeTimeoutMs,
          clientVersion: options.clientVersion,
          maxMessageBytes: options.maxMessageBytes,
          stopGraceMs: options.stopGraceMs,
          log: (source, text, detail) => logs.push(source, text, detail),
          roots: () =>
            deps.roots().map((folder) => ({
              uri: pathToFileURL(folder).href,
              name: folder.split(/[\\/]/).filter(Boolean).at(-1) ?? folder,
            })),
          ...(deps.onResourceUpdated ? { onResourceUpdated: deps.onResourceUpdated } : {}),
          onUnexpectedClose: (reason) => crashed(gen, reason),
          onToolsChanged: () => void refreshTools(gen),
          onStarting: (handle) => {
            if (gen === generation) starting = handle;
          },
          serverRequests,
          oauth: deps.oauth?.(config),
          sandbox: options.sandbox,
          verdicts: options.verdicts,
          onBlock: (block) => {
            const call = running.size === 1 ? [...running.values()][0] : undefined;
            // The same block again is counted on its line (docs/user/sandbox.md#blocks); past the cap, only the log has it.
            const same = call?.blocks.find(
              (seen): seen is Extract<SandboxBlockView, { kind: string }> =>
                'kind' in seen && seen.kind === block.kind && seen.target === block.target,
            );
            if (same) same.count = (same.count ?? 1) + 1;
            else if (call && call.blocks.length < MAX_BLOCKS_PER_CALL)
              call.blocks.push({
                kind: block.kind,
                target: block.target,
                text: connector?.describeBlock(name, block) ?? block.target,
              });
            deps.onBlock?.(block, call && { toolName: call.toolName, ...(call.chatId ? { chatId: call.chatId } : {}) });
          },
        })
        .finally(() => release?.());
    } catch (error) {
      if (gen === generation) starting = undefined;
      if (gen !== generation) return;
      const message = error instanceof Error ? error.message : String(error);
      if (connector && error instanceof connector.ConnectError && error.needsSignIn) {
        logs.push('host', message);
        setStatus({ state: 'needs-sign-in', message: error.signInExplained ? message : SIGN_IN_MESSAGE });
      } else if (connector && error instanceof connector.ConnectError && error.permanent) {
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
    const offers = opened.client.getServerCapabilities() ?? {};
    setStatus({
      state: 'ready',
      ...(opened.pid !== undefined ? { pid: opened.pid } : {}),
      transport: opened.transport,
      ...(opened.containment ? { containment: opened.containment } : {}),
      ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
      ...(opened.protocolVersion ? { protocolVersion: opened.protocolVersion } : {}),
      features: {
        logging: Boolean(offers.logging),
        resources: Boolean(offers.resources),
        resourceSubscriptions: Boolean(offers.resources?.subscribe),
        prompts: Boolean(offers.prompts),
        completions: Boolean(offers.completions),
      },
    });
    await sendLogLevel(opened, deps.logLevel());
    await refreshTools(gen);
  };

  /** The server refused the token (or wants more scopes): wait for the person, never reconnect in a loop. */
  const signInNeeded = (current: Connection, error: unknown, what: string): void => {
    generation++;
    connection = undefined;
    void current.close();
    const more = connectModule?.signInMessage(error);
    logs.push(
      'host',
      more ? `${what} was refused: ${more}` : `${what} needs a new sign-in: the server refused the stored token.`,
    );
    setStatus({ state: 'needs-sign-in', message: more ?? SIGN_IN_MESSAGE });
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
    setStatus({
      state: 'restarting',
      message: `${reason} Restarting in ${delay < 1000 ? `${delay} ms` : `${Math.round(delay / 1000)} s`}.`,
    });
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
          if (gen === generation && connection === current && connectModule?.isSignInError(error)) {
            // initialize went through but the tools are refused (401/403): the server waits for a sign-in.
            signInNeeded(current, error, 'Listing the tools');
            return;
          }
          if (gen === generation && connection === current) {
            logs.push('host', `Could not list the tools: ${describeError(error)}`);
            deps.onToolsFailed();
          }
        }
      } while (refreshAgain);
    } finally {
      refreshing = false;
    }
  };

  const sendLogLevel = async (current: Connection, level: McpLogLevel): Promise<void> => {
    if (!current.client.getServerCapabilities()?.logging) return;
    try {
      await current.client.setLoggingLevel(level, { timeout: options.initializeTimeoutMs });
      logs.push('host', `Asked the server to log at level ${level} and above.`);
    } catch (error) {
      logs.push('host', `Could not set the log level to ${level}: ${describeError(error)}`);
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

  /**
   * What a call made as a task and a task followed after a restart share (tool-tasks.ts): the server ready, the chat's
   * clock (it never expires; it says whose chat the task's requests belong to), the task's status messages as the
   * call's progress, and its result normalised and checked like any call's. Each leg passes the door itself (`leg`,
   * call-door.ts). A call's task (`door` given: it sent a `tools/call`) is the call its sandbox blocks are counted on,
   * and a JSON-RPC error answering it is its result (`isError`), as for any call; a followed task has neither.
   */
  async function runTask(
    toolName: string,
    options: TaskCallOptions,
    leg: (client: McpSession, options: TaskRunOptions) => Promise<LenientCallToolResult>,
    door?: DoorCall,
  ): Promise<McpToolResult> {
    const current = connection;
    if (!current || status.state !== 'ready') {
      throw new WorkbenchError(
        'unavailable',
        `The MCP server "${name}" is not ready (${status.state}${status.message ? `: ${status.message}` : ''}).`,
        { server: name },
      );
    }
    const clock = clocks.start(NO_SDK_TIMEOUT_MS, () => {}, options.chatId);
    const callId = nextCall++;
    const inFlight = { toolName, chatId: options.chatId, blocks: [] as SandboxBlockView[] };
    if (door) running.set(callId, inFlight);
    let step = 0;
    try {
      const raw = await leg(current.client, {
        cancel: options.cancel,
        onState: (state) => {
          options.onState(state);
          if (state.statusMessage) options.onProgress?.({ progress: ++step, message: state.statusMessage });
        },
      });
      const problem =
        raw.structuredContent && !raw.isError ? options.validateOutput?.(raw.structuredContent) : undefined;
      const result = normaliseToolResult(raw, { outputSchemaProblem: problem });
      return inFlight.blocks.length > 0 ? { ...result, sandboxBlocks: inFlight.blocks } : result;
    } catch (error) {
      if (error instanceof WorkbenchError || error instanceof CallRefused) throw error;
      const { McpError } = sdkTypes();
      if (door && error instanceof McpError)
        return protocolErrorResult(error.code, error.message.replace(/^(?:MCP error -?\d+: )+/, ''));
      throw new WorkbenchError('unavailable', `The task of "${toolName}" on "${name}" failed: ${describeError(error)}`);
    } finally {
      clock.stop();
      running.delete(callId);
    }
  }

  /**
   * What a task's leg passes right before it is sent: this process must still follow the task (task-claims.ts; else
   * `FollowTakenOver`, nothing sent), then the door with the call's arguments (call-door.ts).
   */
  const legAdmit = (options: TaskCallOptions, door: DoorCall) => (): void => {
    if (options.stillFollowed && !options.stillFollowed()) throw new FollowTakenOver(door.toolName, name);
    deps.admit(door);
  };

  /**
   * A call to a server that offered the 2026-07-28 tasks extension: on the raw path, declaring it (modern-tasks.ts), so
   * the server decides. An answer without a task is the call's result; until a task exists, the call's own stop and
   * timeout hold (`untilTask`), as for any call; once it exists it runs until it ends or the person cancels it.
   */
  async function callAsTask(
    toolName: string,
    args: Record<string, unknown>,
    options: CallOptions,
    task: TaskRunOptions,
  ): Promise<McpToolResult> {
    const { timeoutMs, signal, afterUrlElicitation: _after, task: _task, ...rest } = options;
    const what = `"${toolName}" on "${name}"`;
    const early = new AbortController();
    const stopped = (): void =>
      early.abort(
        new WorkbenchError('cancelled', `The call to ${what} was cancelled; the server was told to stop it.`),
      );
    const clock = clocks.start(
      timeoutMs,
      () =>
        early.abort(
          new WorkbenchError(
            'timeout',
            `${what} did not finish within ${Math.round(timeoutMs / 100) / 10} s; the call was cancelled.`,
          ),
        ),
      options.chatId,
    );
    const created = (): void => {
      clock.stop();
      signal?.removeEventListener('abort', stopped);
    };
    if (signal?.aborted) stopped();
    else signal?.addEventListener('abort', stopped, { once: true });
    try {
      return await supervisor.callToolTask(toolName, args, {
        ...rest,
        ...task,
        // The server's progress restarts the call's timeout, as on any call.
        onProgress:
          rest.onProgress &&
          ((progress) => {
            clock.restart();
            rest.onProgress?.(progress);
          }),
        untilTask: early.signal,
        onState: (state) => {
          created();
          task.onState(state);
        },
      });
    } finally {
      created();
    }
  }

  const supervisor: ServerSupervisor = {
    status: () => status,
    noteSignIn(message) {
      if (status.state === 'needs-sign-in') setStatus({ state: 'needs-sign-in', message });
    },
    start() {
      if (status.state === 'starting' || status.state === 'ready' || status.state === 'restarting') return;
      void launch(++generation);
    },
    async hold() {
      const wasRunning = status.state !== 'stopped' && status.state !== 'needs-acceptance';
      const halted = halt();
      setStatus({ state: 'needs-acceptance', message: ACCEPT_MESSAGE });
      await halted;
      if (wasRunning) logs.push('host', 'Stopped: what it runs is not accepted.');
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
    async setLogLevel(level) {
      if (connection && status.state === 'ready') await sendLogLevel(connection, level);
    },
    async rootsChanged() {
      const current = connection;
      if (!current || status.state !== 'ready') return;
      await current.client
        .sendRootsListChanged()
        .catch((error: unknown) =>
          logs.push('host', `Could not tell the server its roots changed: ${describeError(error)}`),
        );
    },
    session() {
      if (!connection || status.state !== 'ready') {
        throw new WorkbenchError(
          'unavailable',
          `The MCP server "${name}" is not ready (${status.state}${status.message ? `: ${status.message}` : ''}).`,
          { server: name },
        );
      }
      return connection.client;
    },
    async callToolTask(toolName, args, options) {
      // The same door as every call (call-door.ts), right before `tools/call` creates the task; on 2026-07-28 before
      // each leg of the task but its cancel (modern-tasks.ts).
      const { chatId, exchangeId, toolCallId, definitionHash } = options;
      const door: DoorCall = { serverName: name, toolName, args, chatId, exchangeId, toolCallId, definitionHash };
      return runTask(
        toolName,
        options,
        (client, run) => {
          const modern = modernTasksOf(client);
          if (modern)
            return modern.call(toolName, args, {
              ...run,
              serverName: name,
              chatId,
              admit: legAdmit(options, door),
              untilTask: options.untilTask,
              onProgress: options.onProgress,
            });
          deps.admit(door);
          return callToolAsTask(client, name, toolName, args, { ...run, admit: legAdmit(options, door) });
        },
        door,
      );
    },
    followTask(toolName, taskId, args, options) {
      return runTask(toolName, options, async (client, run) => {
        const modern = modernTasksOf(client);
        if (!args) {
          // The call's arguments are not known: no leg could be checked against the rules (call-door.ts), so none is
          // sent; the task is stopped (its cancel always goes out).
          const reason = `The task of "${toolName}" was not followed: its call's arguments could not be read from the chat, so its next steps could not be checked against your rules. It was cancelled on "${name}".`;
          logs.push('host', reason);
          await (modern ? modern.cancel(taskId) : cancelTask(client, name, taskId)).catch((error: unknown) =>
            logs.push('host', `Could not cancel the task ${taskId}: ${describeError(error)}`),
          );
          throw new WorkbenchError('not_found', reason, { server: name, taskId });
        }
        // Each leg passes the door of the call as it was made: its tool and its arguments.
        const { chatId, exchangeId, toolCallId, definitionHash } = options;
        const door: DoorCall = { serverName: name, toolName, args, chatId, exchangeId, toolCallId, definitionHash };
        const admit = legAdmit(options, door);
        if (!modern) return followTask(client, name, toolName, taskId, { ...run, admit });
        return modern.follow(toolName, taskId, { ...run, serverName: name, chatId, admit });
      });
    },
    offersTasks: () =>
      status.state === 'ready' && connection !== undefined && modernTasksOf(connection.client) !== undefined,
    async callTool(toolName, args, options) {
      const { timeoutMs, signal, validateOutput, onProgress } = options;
      const current = connection;
      if (!current || status.state !== 'ready') {
        // Asked about what it runs now (held, or still on its way there from the launch it stops): the call waits for
        // the answer, then comes back through here (and the door).
        const waiting = ASKED_ABOUT_STATES.has(status.state) ? deps.afterAcceptance?.(toolName, options) : undefined;
        if (waiting) return waiting.then(() => supervisor.callTool(toolName, args, options));
        throw new WorkbenchError(
          'unavailable',
          `The MCP server "${name}" is not ready (${status.state}${status.message ? `: ${status.message}` : ''}).`,
          { server: name },
        );
      }
      // A server that offered the 2026-07-28 tasks extension: the call declares it, past the same door on each leg,
      // and the server decides whether it runs as a task (docs/dev/protocol-2026.md#tasks-on-2026-07-28).
      if (options.task && modernTasksOf(current.client)) return callAsTask(toolName, args, options, options.task);
      // The door (call-door.ts): every attempt, the first and each retry, passes the deny rules in force now.
      const door: DoorCall = {
        serverName: name,
        toolName,
        args,
        chatId: options.chatId,
        exchangeId: options.exchangeId,
        toolCallId: options.toolCallId,
        definitionHash: options.definitionHash,
      };
      deps.admit(door);
      let refusedLeg: { error: unknown } | undefined;
      const gen = generation;
      // The call's own clock, not the SDK's: it stands still while the server's request waits for the person. What
      // stops the call is a CallAbort, not an AbortController, which follows the caller's signal itself: both cost more
      // per call than the SDK's whole round trip leaves room for (mcp-call-overhead, docs/dev/benchmarks.md).
      const stop = new CallAbort();
      let expired = false;
      const clock = clocks.start(
        timeoutMs,
        () => {
          expired = true;
          stop.abort();
        },
        options.chatId,
      );
      const callId = nextCall++;
      const inFlight = { toolName, chatId: options.chatId, blocks: [] as SandboxBlockView[] };
      running.set(callId, inFlight);
      if (signal) stop.follow(signal);
      try {
        // What Client.callTool does, with a result schema that keeps parts of unknown kinds (its own would reject
        // the whole result). The SDK sends notifications/cancelled when the signal aborts: ours, or the clock's. A
        // 1.x session reads of it only what a CallAbort has (call-abort.ts); the v2 one takes a real AbortSignal
        // from it (modern-client.ts).
        const requestOptions: RequestOptions & CallLegOptions = {
          timeout: NO_SDK_TIMEOUT_MS,
          signal: stop as unknown as AbortSignal,
          // A 2026-07-28 call that needed input is sent again with the answers: each further leg passes the door too.
          admitLeg() {
            try {
              deps.admit(door);
            } catch (error) {
              refusedLeg = { error };
              throw error;
            }
          },
        };
        // A progress token goes with the call only when someone shows the progress (docs/user/mcp-servers.md#progress).
        if (onProgress)
          requestOptions.onprogress = ({ progress, total, message }) => {
            clock.restart();
            onProgress({
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message !== undefined ? { message } : {}),
            });
          };
        const raw = asCallToolResult(
          await current.client.request(
            { method: 'tools/call', params: { name: toolName, arguments: args } },
            UncheckedResultSchema,
            requestOptions,
          ),
        );
        clock.stop();
        if (signal) stop.unfollow(signal);
        running.delete(callId);
        const problem = raw.structuredContent && !raw.isError ? validateOutput?.(raw.structuredContent) : undefined;
        const result = normaliseToolResult(raw, { outputSchemaProblem: problem });
        return inFlight.blocks.length > 0 ? { ...result, sandboxBlocks: inFlight.blocks } : result;
      } catch (error) {
        clock.stop();
        if (signal) stop.unfollow(signal);
        const what = `"${toolName}" on "${name}"`;
        running.delete(callId);
        if (refusedLeg) throw refusedLeg.error;
        if (connectModule?.isSignInError(error)) {
          // The refresh token stopped working: wait for the person, never reconnect in a loop.
          if (gen === generation && connection === current) signInNeeded(current, error, `The call to "${toolName}"`);
          const more = connectModule.signInMessage(error);
          throw new WorkbenchError(
            'unauthorized',
            `${more ?? `The MCP server "${name}" needs you to sign in again.`} The call to "${toolName}" did not run.`,
            { server: name },
          );
        }
        if (signal?.aborted)
          throw new WorkbenchError('cancelled', `The call to ${what} was cancelled; the server was told to stop it.`);
        if (expired)
          throw new WorkbenchError(
            'timeout',
            `${what} did not finish within ${Math.round(timeoutMs / 100) / 10} s; the call was cancelled.`,
          );
        const { McpError, ErrorCode } = sdkTypes();
        const ended = current.endReason();
        if (ended || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
          throw new WorkbenchError(
            'unavailable',
            `The server "${name}" stopped during the call to "${toolName}": it ${ended ?? 'closed the connection'}.`,
          );
        }
        if (
          error instanceof McpError &&
          error.code === ErrorCode.UrlElicitationRequired &&
          serverRequests &&
          !options.afterUrlElicitation
        ) {
          // The server needs the person to open a page first (MCP URL elicitation, error path): asked like its request,
          // and the call retried once when every page was confirmed.
          const pages = await urlElicitationsConfirmed(serverRequests, error, options);
          if (pages === 'confirmed')
            return supervisor.callTool(toolName, args, { ...options, afterUrlElicitation: true });
          if (pages)
            return pageDeclinedResult(name, pages, error.code, error.message.replace(/^(?:MCP error -?\d+: )+/, ''));
        }
        // A 2026-07-28 server that runs the tool only as a task but did not offer the extension, so the call did not
        // declare it (docs/user/mcp-servers.md#tasks): nothing ran.
        if (error instanceof McpError && needsTasksExtension(error.code, error.data))
          return protocolErrorResult(error.code, tasksExtensionRefusal(toolName, name));
        if (error instanceof McpError)
          return protocolErrorResult(error.code, error.message.replace(/^(?:MCP error -?\d+: )+/, ''));
        if (error instanceof z.core.$ZodError) {
          throw new WorkbenchError(
            'unavailable',
            `${what} answered with something that is not an MCP tool result: ${z.prettifyError(error)}`,
          );
        }
        // A task handle the server was not offered (docs/user/mcp-servers.md#tasks): the session itself is sound.
        if (isUnaskedTaskHandle(error)) throw new WorkbenchError('unavailable', unaskedTaskHandle(toolName, name));
        // No answer over HTTP: the session is gone; reconnect as after a crash.
        if (current.transport !== 'stdio') crashed(gen, `The call to "${toolName}" failed: ${describeError(error)}.`);
        throw new WorkbenchError('unavailable', `The call to ${what} failed: ${describeError(error)}`);
      }
    },
  };
  return supervisor;
}

async function listTools(connection: Connection, timeoutMs: number): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await connection.client.request(
      { method: 'tools/list', params: cursor ? { cursor } : {} },
      ListToolsPageSchema,
      { timeout: timeoutMs },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * Each URL a -32042 error names, asked of the person in turn: 'confirmed' when every one was accepted, the first page
 * declined or cancelled otherwise, and null when the error names no page this client can ask about.
 */
async function urlElicitationsConfirmed(
  requests: BoundServerRequests,
  error: McpError,
  options: CallOptions,
): Promise<'confirmed' | { url: string; action: 'decline' | 'cancel' } | null> {
  const parsed = UrlElicitationsSchema.safeParse(error.data);
  if (!parsed.success || parsed.data.elicitations.length === 0) return null;
  const signal = options.signal ?? new AbortController().signal;
  for (const elicitation of parsed.data.elicitations) {
    const answer = await requests.handler.elicit(
      { serverName: requests.serverName, chatId: options.chatId ?? null, signal },
      elicitation,
    );
    if (answer.action !== 'accept') return { url: elicitation.url, action: answer.action };
  }
  return 'confirmed';
}

const UrlElicitationsSchema = z.object({
  elicitations: z
    .array(z.object({ mode: z.literal('url'), url: z.string(), message: z.string(), elicitationId: z.string() }))
    .max(10),
});

/**
 * The SDK's own timeout, turned off: each call runs on its clock (call-clock.ts). The largest delay a Node timer
 * takes; a larger one would fire at once.
 */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

/** The server's requests, each holding the clocks of its calls while it waits, from the chat of those calls. */
function holdingClocks(handler: ServerRequestHandler, serverName: string, clocks: CallClocks): BoundServerRequests {
  return {
    serverName,
    chatOf: () => clocks.chatOf(),
    handler: {
      sample: (origin, params) => clocks.hold(() => handler.sample(origin, params)),
      elicit: (origin, params) => clocks.hold(() => handler.elicit(origin, params)),
    },
  };
}
