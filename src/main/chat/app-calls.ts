import { randomUUID } from 'node:crypto';
import type { PolicyDecision } from '../../shared/approval';
import type { AuditDecision } from '../../shared/audit';
import type { AppToolCallChange, AppToolCallView } from '../../shared/mcp-apps';
import { APP_CALL_PREFIX, AppToolCallViewSchema } from '../../shared/mcp-apps';
import type { McpReadResourceOutput, McpTool } from '../../shared/mcp';
import type { McpToolResult } from '../../shared/mcp-result';
import type { ToolCallRecord } from '../../shared/messages';
import { auditDecisionOf, type ApprovalGate } from '../approval/approval-gate';
import type { PendingStore } from '../approval/pending-store';
import type { AuditRecorder, DecisionRecord } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import { screenAppRequest } from '../mcp/app-requests';
import { CallRefused } from '../mcp/call-door';
import type { McpHost } from '../mcp/mcp-host';
import type { MessageStore } from './message-store';

/**
 * What a tool's MCP Apps view asks of the host (docs/user/mcp-apps.md#what-a-view-may-ask), decided like the model's
 * calls. A view is named by the tool call it belongs to (chat + call id): its server is that call's, never one the
 * view names. A request first meets the checks no one may waive (`screenAppRequest`); a tool call then goes through
 * the decision pipeline of the model's calls (deny rules, settings, grants, rules, ask); one the pipeline asks about
 * waits in the one pending store (kind `app-tool-call`) until the person allows or denies it, or the approval timeout.
 * Every outcome is an audit row whose call id starts with `app:` and whose words say "requested by the app of X, not
 * by the model"; what was allowed runs through the same door as the model's calls (the deny rules in force then).
 */
export interface AppCalls {
  /** Resolves with the tool's result, or throws `permission_denied` with why nothing ran. */
  callTool(input: { chatId: string; viewCallId: string; tool: string; arguments?: unknown }): Promise<McpToolResult>;
  list(chatId?: string): AppToolCallView[];
  /** The person's answer; throws `not_found` when nothing waits by that id. */
  decide(id: string, action: 'allow' | 'deny', reason?: string): void;
  readResource(input: { chatId: string; viewCallId: string; uri: string }): Promise<McpReadResourceOutput>;
  /** Checks a link a view asks to open; the page opens it only after the person confirms. */
  openLink(input: { chatId: string; viewCallId: string; url: string }): { url: string; host: string };
  dispose(): void;
}

export interface AppCallsDependencies {
  gate: Pick<ApprovalGate, 'decide'>;
  store: PendingStore;
  audit: AuditRecorder;
  events: EventHub;
  messages: Pick<MessageStore, 'all'>;
  mcp: Pick<McpHost, 'tools' | 'callTool' | 'readResource'>;
  timeoutSeconds: () => number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

export { APP_CALL_PREFIX };
/** The words every row and card of a view's request carries. */
export const requestedByApp = (serverName: string): string => `requested by the app of ${serverName}, not by the model`;

/** The most requests one view may have in flight at once; more are refused (a view that floods). */
export const APP_REQUESTS_IN_FLIGHT = 8;

interface Waiting {
  view: AppToolCallView;
  settle(outcome: { allow: boolean; why: string }): void;
  timer?: ReturnType<typeof setTimeout>;
}

export function createAppCalls(dependencies: AppCallsDependencies): AppCalls {
  const { gate, store, audit, events, messages, mcp } = dependencies;
  const now = dependencies.now ?? Date.now;
  const onError = dependencies.onError ?? (() => {});
  const owner = `${process.pid}:${randomUUID()}`;
  const waiting = new Map<string, Waiting>();
  const inFlight = new Map<string, number>();

  /** The view's own call: it must exist in the chat, have ended with a result and have a view. */
  function viewCall(chatId: string, viewCallId: string): ToolCallRecord & { exchangeId?: string | undefined } {
    for (const message of messages.all(chatId)) {
      if (message.role !== 'assistant') continue;
      for (const turn of message.reply.turns)
        for (const call of turn.toolCalls ?? [])
          if (call.toolCallId === viewCallId && call.viewUri && call.serverName)
            return { ...call, exchangeId: message.exchangeId };
    }
    throw new WorkbenchError('not_found', 'No tool call with a view by that id in this chat.', { viewCallId });
  }

  const record = (
    base: { chatId: string; exchangeId?: string | undefined; id: string; serverName: string; toolName: string },
    decision: AuditDecision,
    actor: DecisionRecord['actor'],
    decidedBy: string,
    args: Record<string, unknown>,
    definitionHash?: string,
    reason?: string,
  ): DecisionRecord => ({
    chatId: base.chatId,
    exchangeId: base.exchangeId,
    toolCallId: base.id,
    serverName: base.serverName,
    toolName: base.toolName,
    definitionHash,
    decision,
    actor,
    decidedBy: `${decidedBy} (${requestedByApp(base.serverName)})`,
    args,
    reason,
  });

  function claim(
    view: AppToolCallView,
    outcome: 'allow' | 'deny' | 'timeout' | 'cancelled',
    actor: 'user' | 'system',
    why: string,
    decision: AuditDecision,
    reason?: string,
  ): void {
    const row = record(
      { ...view, exchangeId: undefined },
      decision,
      actor,
      why,
      view.args,
      view.definitionHash,
      reason,
    );
    audit.recordDecisionsWith([row], () => {
      const claimed = store.resolveAppCall(
        view.id,
        outcome === 'allow' ? 'allow_once' : outcome,
        JSON.stringify({ outcome, actor, reason: reason ?? why, decidedAt: now() }),
      );
      if (!claimed)
        throw new WorkbenchError('not_found', 'Nothing waits by that id: it was answered, timed out or cancelled.', {
          id: view.id,
        });
    });
    events.emit('apps.onDidChange', { kind: 'resolved', call: view } satisfies AppToolCallChange);
  }

  const refuse = (why: string): never => {
    throw new WorkbenchError('refused', why);
  };

  async function run(
    id: string,
    chatId: string,
    exchangeId: string | undefined,
    tool: McpTool,
    args: Record<string, unknown>,
  ): Promise<McpToolResult> {
    const started = performance.now();
    let result: McpToolResult | undefined;
    let failure: string | undefined;
    try {
      result = await mcp.callTool({
        serverName: tool.serverName,
        toolName: tool.name,
        args,
        chatId,
        exchangeId,
        toolCallId: id,
        definitionHash: tool.definitionHash,
      });
      return result;
    } catch (error) {
      // A deny rule in force when the call was sent: the door recorded it, nothing ran.
      if (error instanceof CallRefused) return refuse(`${error.reason} (${requestedByApp(tool.serverName)})`);
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      if (result || failure !== undefined) {
        try {
          audit.recordToolResult({
            chatId,
            exchangeId,
            toolCallId: id,
            serverName: tool.serverName,
            toolName: tool.name,
            definitionHash: tool.definitionHash,
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

  function ask(view: AppToolCallView): Promise<{ allow: boolean; why: string }> {
    return new Promise((resolve) => {
      const entry: Waiting = { view, settle: resolve };
      store.insertAppCall(view, JSON.stringify(view), view.expiresAt, owner);
      waiting.set(view.id, entry);
      if (view.expiresAt !== null) {
        entry.timer = setTimeout(() => {
          if (!waiting.delete(view.id)) return;
          try {
            claim(view, 'timeout', 'system', 'no answer within the approval timeout', 'timeout');
          } catch (error) {
            onError(error);
          }
          resolve({ allow: false, why: 'Nobody answered within the approval timeout, so the tool did not run.' });
        }, view.expiresAt - now());
      }
      events.emit('apps.onDidChange', { kind: 'waiting', call: view } satisfies AppToolCallChange);
    });
  }

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

  // What waited in a process that is gone cannot be answered any more (its view went with that page).
  for (const stale of store.waitingAppCalls()) {
    try {
      claim(
        AppToolCallViewSchema.parse(JSON.parse(stale.json)),
        'cancelled',
        'system',
        'the app ended while it waited',
        'cancelled',
      );
    } catch (error) {
      onError(error);
    }
  }

  return {
    async callTool({ chatId, viewCallId, tool: toolName, arguments: rawArgs }) {
      const origin = viewCall(chatId, viewCallId);
      const serverName = origin.serverName;
      const id = `${APP_CALL_PREFIX}${randomUUID()}`;
      const base = { chatId, exchangeId: origin.exchangeId, id, serverName, toolName };
      const plainArgs =
        typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs)
          ? (rawArgs as Record<string, unknown>)
          : {};
      const refusedRow = (why: string): void => {
        try {
          audit.recordDecision(record(base, 'auto_deny', 'system', why, plainArgs));
        } catch (error) {
          onError(error);
        }
      };
      return limited(
        `${chatId}\u0000${viewCallId}`,
        () => refusedRow('too many requests at once'),
        async () => {
          const screening = screenAppRequest(
            { kind: 'tools/call', serverName, toolName, args: rawArgs ?? {} },
            mcp.tools(),
          );
          if (!screening.ok || screening.kind !== 'tools/call') {
            const why = screening.ok ? 'not a tool call' : screening.reason;
            refusedRow(why);
            return refuse(why);
          }
          const { tool, args } = screening;
          const decision: PolicyDecision = gate.decide(chatId, { serverName, toolName, args }, tool);
          if (decision.outcome !== 'ask') {
            audit.recordDecision(
              record(base, auditDecisionOf(decision), 'policy', decision.reason, args, tool.definitionHash),
            );
            if (decision.outcome === 'deny') return refuse(`${decision.reason} (${requestedByApp(serverName)})`);
            return run(id, chatId, origin.exchangeId, tool, args);
          }
          const seconds = dependencies.timeoutSeconds();
          const createdAt = now();
          const view: AppToolCallView = {
            id,
            chatId,
            viewCallId,
            serverName,
            toolName,
            ...(tool.title === undefined ? {} : { title: tool.title }),
            ...(tool.description === undefined ? {} : { description: tool.description }),
            args,
            definitionHash: tool.definitionHash,
            reason: decision.reason,
            createdAt,
            expiresAt: seconds > 0 ? createdAt + seconds * 1000 : null,
          };
          const answer = await ask(view);
          if (!answer.allow) return refuse(answer.why);
          return run(id, chatId, origin.exchangeId, tool, args);
        },
      );
    },
    list(chatId) {
      const all = [...waiting.values()].map((entry) => entry.view);
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    decide(id, action, reason) {
      const entry = waiting.get(id);
      if (!entry)
        throw new WorkbenchError('not_found', 'Nothing waits by that id: it was answered, timed out or cancelled.', {
          id,
        });
      claim(
        entry.view,
        action,
        'user',
        action === 'allow' ? 'allowed by you' : 'denied by you',
        action === 'allow' ? 'allow_once' : 'deny',
        reason,
      );
      waiting.delete(id);
      if (entry.timer) clearTimeout(entry.timer);
      entry.settle(
        action === 'allow'
          ? { allow: true, why: '' }
          : { allow: false, why: `You denied it${reason ? `: ${reason}` : ''}; the tool did not run.` },
      );
    },
    async readResource({ chatId, viewCallId, uri }) {
      const origin = viewCall(chatId, viewCallId);
      const screening = screenAppRequest({ kind: 'resources/read', serverName: origin.serverName, uri }, mcp.tools());
      if (!screening.ok) return refuse(screening.reason);
      return mcp.readResource(origin.serverName, uri);
    },
    openLink({ chatId, viewCallId, url }) {
      const origin = viewCall(chatId, viewCallId);
      const screening = screenAppRequest({ kind: 'ui/open-link', serverName: origin.serverName, url }, mcp.tools());
      if (!screening.ok || screening.kind !== 'ui/open-link') {
        const why = screening.ok ? 'not a link' : screening.reason;
        try {
          audit.recordDecision(
            record(
              {
                chatId,
                exchangeId: origin.exchangeId,
                id: `${APP_CALL_PREFIX}${randomUUID()}`,
                serverName: origin.serverName,
                toolName: 'ui/open-link',
              },
              'auto_deny',
              'system',
              why,
              { url: url.slice(0, 500) },
            ),
          );
        } catch (error) {
          onError(error);
        }
        return refuse(why);
      }
      return { url: screening.url, host: screening.host };
    },
    dispose() {
      for (const [id, entry] of waiting) {
        waiting.delete(id);
        if (entry.timer) clearTimeout(entry.timer);
        try {
          claim(entry.view, 'cancelled', 'system', 'the app stopped while it waited', 'cancelled');
        } catch (error) {
          onError(error);
        }
        entry.settle({ allow: false, why: 'The app stopped while the call waited; the tool did not run.' });
      }
    },
  };
}
