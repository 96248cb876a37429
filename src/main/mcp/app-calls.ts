import { randomUUID } from 'node:crypto';
import type { ChatGrant, PolicyDecision } from '../../shared/approval';
import type { AuditDecision } from '../../shared/audit';
import { SERVER_REQUEST_RESOLUTION_OF, withDecisionOrigin, type DecisionOrigin } from '../../shared/decisions';
import { APP_CALL_PREFIX, appGrantOf, FRAME_REFUSAL_WORDS, type AppRefusalInput } from '../../shared/mcp-apps';
import type { McpReadResourceOutput, McpTool } from '../../shared/mcp';
import type { McpToolResult } from '../../shared/mcp-result';
import type {
  AppToolCallView,
  HeldRequestView,
  ServerRequestDecision,
  WaitingServerRequestResolution,
} from '../../shared/server-request-views';
import type { AuditRecorder, DecisionRecord } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import { appCallRecord, appRequestRecord, requestedByApp, type AppRequestRow } from './app-call-records';
import { screenAppRequest } from './app-requests';
import { CallRefused } from './call-door';
import type { McpHost } from './mcp-host';

/**
 * What a tool's MCP Apps view asks of the host (docs/user/mcp-apps.md#what-a-view-may-ask), decided like the model's
 * calls. A view is named by the tool call it belongs to (chat + call id): its server is that call's, never one the
 * view names. A request first meets the checks no one may waive (`screenAppRequest`); a tool call then goes through
 * the decision pipeline of the model's calls (deny rules, settings, grants, rules, ask) with the chat's grants of the
 * app's calls; one the pipeline asks about waits in the one pending store as a server request (kind `app-tool-call`,
 * `serverRequests.*`, the same timer owner) until the person allows it once or for the chat, denies it, or the
 * approval timeout. Every outcome is an audit row whose call id starts with `app:` and whose words say "requested by
 * the app of X (view ui://…), not by the model"; what was allowed runs through the same door as the model's calls.
 */
export interface AppCalls {
  /** Resolves with the tool's result, or throws `refused` with why nothing ran. */
  callTool(input: { chatId: string; viewCallId: string; tool: string; arguments?: unknown }): Promise<McpToolResult>;
  /** Whether a view's tool call by this id waits here (`serverRequests.decide` routes its answer to `decide`). */
  holds(id: string): boolean;
  /**
   * The person's answer: `allow-once`, `allow-chat` or `deny`; throws `not_found` when nothing waits by that id.
   * `origin` names where it was given when not on the card (its audit row says so).
   */
  decide(id: string, decision: ServerRequestDecision, origin?: DecisionOrigin): { request: null };
  readResource(input: { chatId: string; viewCallId: string; uri: string }): Promise<McpReadResourceOutput>;
  /** Checks a link a view asks to open; the page opens it only after the person confirms. */
  openLink(input: { chatId: string; viewCallId: string; url: string }): { url: string; host: string };
  /** A refusal the page made in the view's frame (a blocked link, a blocked request): recorded like one made here. */
  recordRefusal(input: AppRefusalInput): void;
  /** The chat was stopped or deleted: what its views wait for is cancelled. */
  cancelChat(chatId: string): void;
  dispose(): void;
}

/** The pending store's server requests, as far as a view's calls use them (approval/server-request-waits.ts). */
export interface AppCallWaits {
  add(request: HeldRequestView): void;
  resolve(
    id: string,
    resolution: Omit<WaitingServerRequestResolution, 'decidedAt'>,
    records: readonly DecisionRecord[],
    grant?: ChatGrant,
  ): void;
  onDue(listener: (id: string) => void): () => void;
}

/** The tool call whose view asks: its server, its view's resource and its exchange. */
export interface ViewOrigin {
  serverName: string;
  viewUri?: string | undefined;
  exchangeId?: string | undefined;
  /** The identity key of the server the call was made to: the view is bound to it (`ToolCallRecord.viewIdentity`). */
  identity?: string | undefined;
}

export interface AppCallsDependencies {
  /** The decision pipeline for a view's call: the model's, with the chat's grants of the app's calls. */
  decide(
    chatId: string,
    call: { serverName: string; toolName: string; args: Record<string, unknown> },
    tool: McpTool,
  ): PolicyDecision;
  waits: AppCallWaits;
  audit: AuditRecorder;
  /** The chat's tool call with a view by that id; throws `not_found` when there is none. */
  viewCall(chatId: string, viewCallId: string): ViewOrigin;
  /**
   * What the server by this name runs now (its identity key, undefined when there is none by that name). Given, a
   * view whose call was made to another identity, or recorded none, is stale and every request of it is refused
   * (docs/user/mcp-apps.md#a-view-belongs-to-its-server).
   */
  identityOf?(serverName: string): string | undefined;
  mcp: Pick<McpHost, 'tools' | 'callTool' | 'readResource'>;
  now?: () => number;
  onError?: (error: unknown) => void;
}

export { APP_CALL_PREFIX, requestedByApp };

/** The most requests one view may have in flight at once; more are refused (a view that floods). */
export const APP_REQUESTS_IN_FLIGHT = 8;

/** How a waiting call ended: allowed, or why it did not run. */
type Answer = { allow: true } | { allow: false; why: string };

const NOTHING_WAITS = 'Nothing waits by that id: it was answered, timed out or cancelled.';

function decisionOf(decision: PolicyDecision): AuditDecision {
  if (decision.outcome === 'deny') return 'auto_deny';
  return decision.source.kind === 'chat-grant' ? 'session_grant' : 'auto_allow';
}

export function createAppCalls(dependencies: AppCallsDependencies): AppCalls {
  const { waits, audit, mcp } = dependencies;
  const now = dependencies.now ?? Date.now;
  const onError = dependencies.onError ?? (() => {});
  const held = new Map<string, { view: AppToolCallView; settle(answer: Answer): void }>();
  const inFlight = new Map<string, number>();

  const refuse = (why: string): never => {
    throw new WorkbenchError('refused', why);
  };
  const recordQuietly = (record: DecisionRecord): void => {
    try {
      audit.recordDecision(record);
    } catch (error) {
      onError(error);
    }
  };

  /** The system ends a waiting call (its timeout, a stop, the end of the app): claimed with its row, then refused. */
  function endBySystem(id: string, outcome: 'timeout' | 'cancelled', why: string, told: string): void {
    const entry = held.get(id);
    if (!entry) return;
    held.delete(id);
    try {
      waits.resolve(id, { outcome, actor: 'system', action: null, reason: why }, [
        appCallRecord(entry.view, outcome, 'system', why),
      ]);
    } catch (error) {
      if (!(error instanceof WorkbenchError && error.code === 'not_found')) onError(error);
    }
    entry.settle({ allow: false, why: told });
  }
  const stopDue = waits.onDue((id) =>
    endBySystem(
      id,
      'timeout',
      'no answer within the approval timeout',
      'Nobody answered within the approval timeout, so the tool did not run.',
    ),
  );

  async function run(row: AppRequestRow, tool: McpTool, args: Record<string, unknown>): Promise<McpToolResult> {
    const started = performance.now();
    let result: McpToolResult | undefined;
    let failure: string | undefined;
    try {
      result = await mcp.callTool({
        serverName: tool.serverName,
        toolName: tool.name,
        args,
        chatId: row.chatId,
        exchangeId: row.exchangeId,
        toolCallId: row.id,
        definitionHash: tool.definitionHash,
      });
      return result;
    } catch (error) {
      // A deny rule in force when the call was sent: the door recorded it, nothing ran.
      if (error instanceof CallRefused)
        return refuse(`${error.reason} (${requestedByApp(tool.serverName, row.viewUri)})`);
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      if (result || failure !== undefined) {
        try {
          audit.recordToolResult({
            chatId: row.chatId,
            exchangeId: row.exchangeId,
            toolCallId: row.id,
            serverName: tool.serverName,
            toolName: tool.name,
            definitionHash: tool.definitionHash,
            requestedBy: 'app',
            outcome: result && !result.isError ? 'success' : 'error',
            durationMs: performance.now() - started,
            resultBytes: result?.sizeBytes ?? 0,
            error: result && !result.isError ? undefined : (failure ?? 'the tool reported an error'),
          });
        } catch (error) {
          onError(error);
        }
      }
    }
  }

  /** Waits in the pending store until the person, the timeout or a stop ends it. */
  const ask = (view: AppToolCallView): Promise<Answer> =>
    new Promise((resolve, reject) => {
      held.set(view.id, { view, settle: resolve });
      try {
        waits.add(view);
      } catch (error) {
        held.delete(view.id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });

  /** At most APP_REQUESTS_IN_FLIGHT requests of one view at a time; a refusal beyond is recorded like any other. */
  async function limited<T>(key: string, refused: () => void, action: () => Promise<T>): Promise<T> {
    const count = inFlight.get(key) ?? 0;
    if (count >= APP_REQUESTS_IN_FLIGHT) {
      refused();
      return refuse(`The view has ${APP_REQUESTS_IN_FLIGHT} requests waiting already; this one was refused.`);
    }
    inFlight.set(key, count + 1);
    try {
      return await action();
    } finally {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    }
  }

  /** Why a view may no longer ask anything: its server's name means another server now (or none). */
  const staleWhy = (origin: ViewOrigin): string | undefined => {
    if (!dependencies.identityOf) return undefined;
    const current = dependencies.identityOf(origin.serverName);
    if (origin.identity !== undefined && origin.identity === current) return undefined;
    const what =
      current === undefined
        ? `no server is named "${origin.serverName}" any more`
        : origin.identity === undefined
          ? `the server it was shown for is not recorded`
          : `"${origin.serverName}" now runs another server than the one it was shown for`;
    return `stale view: ${what}, so the view may not ask anything`;
  };
  /** Refuses and records a request of a stale view; returns when the view is current. */
  const refuseIfStale = (chatId: string, origin: ViewOrigin, what: string, args: Record<string, unknown>): void => {
    const why = staleWhy(origin);
    if (why === undefined) return;
    recordQuietly(appRequestRecord(rowOf(chatId, origin, what), 'auto_deny', 'system', why, args));
    throw new WorkbenchError('refused', `${why[0]?.toUpperCase()}${why.slice(1)}.`, { stale: true });
  };

  const rowOf = (chatId: string, origin: ViewOrigin, toolName: string): AppRequestRow => ({
    chatId,
    exchangeId: origin.exchangeId,
    id: `${APP_CALL_PREFIX}${randomUUID()}`,
    serverName: origin.serverName,
    toolName,
    viewUri: origin.viewUri,
  });

  return {
    async callTool({ chatId, viewCallId, tool: toolName, arguments: rawArgs }) {
      const origin = dependencies.viewCall(chatId, viewCallId);
      const row = rowOf(chatId, origin, toolName);
      const plainArgs =
        typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs)
          ? (rawArgs as Record<string, unknown>)
          : {};
      const refusedRow = (why: string): void =>
        recordQuietly(appRequestRecord(row, 'auto_deny', 'system', why, plainArgs));
      refuseIfStale(chatId, origin, toolName, plainArgs);
      return limited(
        `${chatId}\u0000${viewCallId}`,
        () => refusedRow('too many requests at once'),
        async () => {
          const screening = screenAppRequest(
            { kind: 'tools/call', serverName: origin.serverName, toolName, args: rawArgs ?? {} },
            mcp.tools(),
          );
          if (!screening.ok || screening.kind !== 'tools/call') {
            const why = screening.ok ? 'not a tool call' : screening.reason;
            refusedRow(why);
            return refuse(why);
          }
          const { tool, args } = screening;
          const decision = dependencies.decide(chatId, { serverName: origin.serverName, toolName, args }, tool);
          if (decision.outcome !== 'ask') {
            audit.recordDecision(
              appRequestRecord(row, decisionOf(decision), 'policy', decision.reason, args, {
                definitionHash: tool.definitionHash,
              }),
            );
            if (decision.outcome === 'deny')
              return refuse(`${decision.reason} (${requestedByApp(origin.serverName, origin.viewUri)})`);
            return run(row, tool, args);
          }
          const view: AppToolCallView = {
            id: row.id,
            kind: 'app-tool-call',
            chatId,
            viewCallId,
            ...(origin.viewUri === undefined ? {} : { viewUri: origin.viewUri }),
            serverName: origin.serverName,
            toolName,
            ...(tool.title === undefined ? {} : { title: tool.title }),
            ...(tool.description === undefined ? {} : { description: tool.description }),
            args,
            definitionHash: tool.definitionHash,
            reason: decision.reason,
            createdAt: now(),
          };
          const answer = await ask(view);
          if (!answer.allow) return refuse(answer.why);
          return run(row, tool, args);
        },
      );
    },
    holds: (id) => held.has(id),
    decide(id, decision, origin) {
      const entry = held.get(id);
      if (!entry) throw new WorkbenchError('not_found', NOTHING_WAITS, { id });
      const { action } = decision;
      if (action !== 'allow-once' && action !== 'allow-chat' && action !== 'deny')
        throw new WorkbenchError(
          'invalid_input',
          `A view's tool call takes allow-once, allow-chat or deny, not "${action}".`,
          { id, action },
        );
      const { view } = entry;
      const outcome = SERVER_REQUEST_RESOLUTION_OF[action];
      const words =
        action === 'deny'
          ? 'denied by you'
          : action === 'allow-chat'
            ? 'allowed by you for this chat'
            : 'allowed by you';
      const grant: ChatGrant | undefined =
        action === 'allow-chat'
          ? {
              chatId: view.chatId,
              serverName: view.serverName,
              ...appGrantOf(view.toolName, view.definitionHash),
              grantedAt: now(),
            }
          : undefined;
      waits.resolve(
        id,
        { outcome, actor: 'user', action, reason: decision.reason ?? null },
        [
          appCallRecord(
            view,
            action === 'deny' ? 'deny' : outcome,
            'user',
            withDecisionOrigin(words, origin),
            decision.reason,
          ),
        ],
        grant,
      );
      held.delete(id);
      entry.settle(
        action === 'deny'
          ? {
              allow: false,
              why: `You denied it${decision.reason ? `: ${decision.reason}` : ''}; the tool did not run.`,
            }
          : { allow: true },
      );
      return { request: null };
    },
    async readResource({ chatId, viewCallId, uri }) {
      const origin = dependencies.viewCall(chatId, viewCallId);
      refuseIfStale(chatId, origin, 'resources/read', { uri: uri.slice(0, 500) });
      const screening = screenAppRequest({ kind: 'resources/read', serverName: origin.serverName, uri }, mcp.tools());
      if (!screening.ok) {
        recordQuietly(
          appRequestRecord(rowOf(chatId, origin, 'resources/read'), 'auto_deny', 'system', screening.reason, {
            uri: uri.slice(0, 500),
          }),
        );
        return refuse(screening.reason);
      }
      return mcp.readResource(origin.serverName, uri);
    },
    openLink({ chatId, viewCallId, url }) {
      const origin = dependencies.viewCall(chatId, viewCallId);
      refuseIfStale(chatId, origin, 'ui/open-link', { url: url.slice(0, 500) });
      const screening = screenAppRequest({ kind: 'ui/open-link', serverName: origin.serverName, url }, mcp.tools());
      if (!screening.ok || screening.kind !== 'ui/open-link') {
        const why = screening.ok ? 'not a link' : screening.reason;
        recordQuietly(
          appRequestRecord(rowOf(chatId, origin, 'ui/open-link'), 'auto_deny', 'system', why, {
            url: url.slice(0, 500),
          }),
        );
        return refuse(why);
      }
      return { url: screening.url, host: screening.host };
    },
    recordRefusal({ chatId, viewCallId, what, detail }) {
      const origin = dependencies.viewCall(chatId, viewCallId);
      audit.recordDecision(
        appRequestRecord(rowOf(chatId, origin, what), 'auto_deny', 'system', FRAME_REFUSAL_WORDS, {
          detail: detail.slice(0, 500),
        }),
      );
    },
    cancelChat(chatId) {
      for (const [id, entry] of [...held])
        if (entry.view.chatId === chatId)
          endBySystem(
            id,
            'cancelled',
            'the chat was stopped',
            'The chat was stopped while the call waited; the tool did not run.',
          );
    },
    dispose() {
      stopDue();
      for (const id of [...held.keys()])
        endBySystem(
          id,
          'cancelled',
          'the app stopped while it waited',
          'The app stopped while the call waited; the tool did not run.',
        );
    },
  };
}
