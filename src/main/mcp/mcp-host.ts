import type {
  McpCompleteOutput,
  McpGetPromptOutput,
  McpLogLine,
  McpPromptsOutput,
  McpReadResourceOutput,
  McpResourcesOutput,
  McpServerView,
  McpTool,
} from '../../shared/mcp';
import { createAcceptanceQuestions, type AcceptanceQuestion } from './acceptance-questions';
import type { ManagedSandbox } from '../../shared/approval';
import type { McpAppView } from '../../shared/mcp-apps';
import type { McpToolResult } from '../../shared/mcp-result';
import type { ToolProgress, ToolTaskState } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SecretStore } from '../settings/secret-store';
import type { CallDoor } from './call-door';
import type { NodeRuntime } from './node-runtime';
import { createServerOAuthSessions, type OAuthPolicy } from './oauth/server-sessions';
import type { SandboxBlock } from './sandbox';
import type { McpServerConfigService } from './server-config-service';
import { createServerFeatures } from './server-features';
import { createServerFleet } from './server-fleet';
import type { ServerRequestHandler } from './server-request-routing';
import { createServerSignIn } from './server-sign-in';
import type { RestartPolicy } from './server-supervisor';
import { createServerToolCalls } from './server-tool-calls';

export type { OAuthPolicy } from './oauth/server-sessions';

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
  /**
   * A tool that must run as a task (docs/user/mcp-servers.md#tasks) reports its task here: created, each status, its
   * end. The call then has no timeout and `signal` does not stop it; `cancelTask` with its `toolCallId` does.
   */
  onTask?: ((state: ToolTaskState) => void) | undefined;
  /** Whether this process still follows the call's task, asked before each of its legs (tool-tasks.ts, task-claims.ts). */
  stillFollowed?: (() => boolean) | undefined;
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
  /** Sends `tasks/cancel` for the task of the call `toolCallId` (docs/user/mcp-servers.md#tasks); false when none runs here. */
  cancelTask(toolCallId: string): boolean;
  /**
   * Follows the task `taskId` of a call made before the host restarted, to its end (docs/user/mcp-servers.md#tasks):
   * no `tools/call` is sent. Throws `not_found` when the server no longer knows the task (the reason in words),
   * `unavailable` when the server is not ready, `cancelled` when it was cancelled; `cancelTask` reaches it. Each leg
   * passes the door with `args`; without them the task is cancelled, not followed (`not_found`).
   */
  followTask(request: {
    serverName: string;
    toolName: string;
    taskId: string;
    toolCallId: string;
    chatId: string;
    /** The call's arguments, read from its record in the chat; undefined when the record is gone. */
    args: Record<string, unknown> | undefined;
    stillFollowed?: (() => boolean) | undefined;
    exchangeId?: string | undefined;
    definitionHash?: string | undefined;
    onTask(state: ToolTaskState): void;
  }): Promise<McpToolResult>;
  /**
   * Resolves once no server is still starting: each is ready with its tools listed, failed, or stopped. Resolves
   * at once when the host is not running, and after `timeoutMs` (default: the initialize timeout) or when `signal`
   * aborts at the latest, so a caller never waits on a server that hangs. `serverName` waits for that server only;
   * `acceptCached` also counts a starting server whose tools are known from its last launch (`cached` tools).
   */
  whenSettled(options?: WhenSettledOptions): Promise<void>;
  /**
   * The person is being asked whether to accept what the server runs now (docs/user/cli.md#settingsjson-while-chat-runs):
   * until the question is answered, a call of it that was allowed waits for the answer (within its timeout) instead
   * of failing as not ready; accepted, it goes on once the server started; kept stopped, it is refused.
   */
  askAcceptance(name: string): AcceptanceQuestion;
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

/**
 * The host, put together from one owner per flow: the fleet runs the servers (lifecycle, tools as listed, status,
 * who waits), the tool calls run their tools, the features read what they offer beyond tools, and the sign-in
 * flows hold their OAuth sessions' person-facing side.
 */
export function createMcpHost(dependencies: McpHostDependencies): McpHost {
  const { config, secrets, oauthPolicy } = dependencies;
  const oauth = createServerOAuthSessions({ config, secrets, oauthPolicy });
  const acceptance = createAcceptanceQuestions();
  const fleet = createServerFleet({ ...dependencies, oauth, acceptance });
  return {
    start: (options) => fleet.start(options),
    stop: () => fleet.stop(),
    stopNow: () => fleet.stopNow(),
    list: () => config.list().map(fleet.viewOf),
    server: (name) => fleet.viewOf(fleet.require(name)),
    async restart(name) {
      const server = fleet.require(name);
      if (!server.enabled)
        throw new WorkbenchError('invalid_input', `The MCP server "${name}" is disabled; enable it to start it.`, {
          name,
        });
      await fleet.restart(server);
      return fleet.viewOf(fleet.require(name));
    },
    logs(name, limit) {
      fleet.require(name);
      const logs = fleet.entry(name)?.logs;
      return { name, lines: logs?.lines(limit) ?? [], dropped: logs?.dropped ?? 0 };
    },
    whenSettled: (options) => fleet.whenSettled(options),
    askAcceptance: (name) => acceptance.ask(name),
    ...createServerToolCalls({ fleet }),
    ...createServerFeatures({ config, fleet }),
    ...createServerSignIn({ config, fleet, oauth, openSignInPage: dependencies.openSignInPage }),
  };
}
