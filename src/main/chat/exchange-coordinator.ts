import { randomUUID } from 'node:crypto';
import type { ApprovalResolution, ToolCallApproval } from '../../shared/approval';
import type {
  ChatActivity,
  ChatMessage,
  ChatMessagesOutput,
  ChatSendOutput,
  OutgoingMessage,
  ResourceAttachment,
  UserChatMessage,
} from '../../shared/messages';
import type { ServerRequestDecision, McpServerRequestView } from '../../shared/server-request-views';
import type { DecisionOrigin } from '../../shared/decisions';
import type { PendingApprovals } from '../approval/pending-approvals';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import { DEFAULT_CHAT_TITLE, type ChatService } from './chat-service';
import type { ServerRequestHandler } from '../mcp/server-request-routing';
import type { MessageStore } from './message-store';
import type { ServerRequests } from './server-request-flow';
import { createTextBatcher } from './text-batcher';
import type { ExchangeRun, LoopReporter, ToolLoop } from './tool-loop';

/** Where a chat's exchange is: nothing going on, the loop running, or calls waiting for a person. */
export type ExchangeState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'running'; readonly exchangeId: string; readonly status: 'generating' | 'running-tools' }
  | { readonly kind: 'waiting-approval'; readonly exchangeId: string | null };

/** What else moves a waiting exchange besides a person's approval message: one typed way in. */
export type ExchangeEvent =
  | { readonly kind: 'timeout'; readonly chatId: string }
  | { readonly kind: 'stop'; readonly chatId: string }
  /** A front end with no person to ask (the CLI without a terminal) denies every waiting call, as the system. */
  | { readonly kind: 'unattended'; readonly chatId: string; readonly reason: string };

/**
 * The ONE owner of the approval round trip (docs/dev/architecture.md, the tool loop and the approval round trip): it
 * holds each chat's exchange state and is the only caller of the pending store's changes and of the tool loop, for
 * every provider and every front end (app, browser mode, CLI). Progress is announced as `chat.onDidStream` events.
 *
 * Guarantees:
 * - `send` stores the message before it returns; the exchange then goes on in the background.
 * - A user message is refused (`conflict`) while the chat's exchange runs or waits for approvals; an approval
 *   message is refused (`invalid_input`, naming each problem) unless it answers exactly the calls that wait.
 * - No tool runs unless the decision pipeline or a person allowed it, its decision row is in the audit log first,
 *   and no deny rule in force when it runs matches it.
 * - What a provider is sent is the clean conversation: tool calls and results, never approval bookkeeping.
 */
export interface ExchangeCoordinator extends ServerRequestHandler {
  /** `origin`: where the person decided an approval message when not on the card (the desktop notification). */
  send(chatId: string, message: OutgoingMessage, origin?: DecisionOrigin): ChatSendOutput;
  /** Cancels the stream, in-flight tool calls and waiting approvals of the chat's exchange. */
  stop(chatId: string): { stopped: boolean };
  /**
   * The person's Cancel of a tool call running as an MCP task (docs/user/mcp-servers.md#tasks), whether or not its
   * reply still runs: recorded in the audit log, then `tasks/cancel`; the call ends when the server says so.
   */
  cancelTask(chatId: string, toolCallId: string): { cancelled: boolean };
  /** Timeouts, stops and unattended denials enter here. */
  handle(event: ExchangeEvent): void;
  state(chatId: string): ExchangeState;
  messages(
    chatId: string,
    options?: { beforeSeq?: number | undefined; limit?: number | undefined },
  ): ChatMessagesOutput;
  activity(chatId: string): ChatActivity;
  /** Resolves once the chat is idle or waits for a person (for the CLI and tests): what it is doing then. */
  settled(chatId: string): Promise<ChatActivity>;
  /**
   * What servers ask while a chat's tool call runs (sampling, elicitation), decided like tool calls
   * (docs/user/server-requests.md): `chatId` null for the requests no chat made, undefined for all.
   */
  serverRequests(chatId?: string | null): McpServerRequestView[];
  /** The person's answer; its audit row is committed before it applies. */
  decideServerRequest(
    id: string,
    decision: ServerRequestDecision,
    origin?: DecisionOrigin,
  ): { request: McpServerRequestView | null };
  /** Stops every running exchange (waiting approvals stay, to be answered after a restart) and waits for them. */
  dispose(): Promise<void>;
}

export interface ExchangeCoordinatorDependencies {
  chats: ChatService;
  messages: MessageStore;
  loop: ToolLoop;
  pending: Pick<PendingApprovals, 'list' | 'submit' | 'cancelAll' | 'denyUnattended' | 'expire'>;
  /** The servers' requests of the model and the person; without it, each is refused. */
  serverRequests?: ServerRequests | undefined;
  events: EventHub;
  now?: () => number;
  /** How often text deltas are sent at most, per chat. */
  textIntervalMs?: number;
  onError?: (error: unknown) => void;
}

interface Run {
  exchangeId: string;
  controller: AbortController;
  status: 'generating' | 'running-tools';
  done: Promise<void>;
}

/** The longest title made from a first message. */
const TITLE_LENGTH = 60;

export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_LENGTH) return line;
  const cut = line.slice(0, TITLE_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export function createExchangeCoordinator(dependencies: ExchangeCoordinatorDependencies): ExchangeCoordinator {
  const { chats, messages, loop, pending, events } = dependencies;
  const now = dependencies.now ?? Date.now;
  const onError = dependencies.onError ?? (() => {});
  const runs = new Map<string, Run>();
  const batcher = createTextBatcher(({ chatId, exchangeId, messageId, turn }, delta) => {
    events.emit('chat.onDidStream', { kind: 'text', chatId, exchangeId, messageId, turn, delta });
  }, dependencies.textIntervalMs);

  const state = (chatId: string): ExchangeState => {
    const run = runs.get(chatId);
    if (run) return { kind: 'running', exchangeId: run.exchangeId, status: run.status };
    const waiting = pending.list(chatId)[0];
    return waiting ? { kind: 'waiting-approval', exchangeId: waiting.exchangeId } : { kind: 'idle' };
  };
  const activity = (chatId: string): ChatActivity => {
    const current = state(chatId);
    if (current.kind === 'running') return { status: current.status, exchangeId: current.exchangeId };
    if (current.kind === 'waiting-approval') return { status: 'waiting-approval', exchangeId: current.exchangeId };
    return { status: 'idle', exchangeId: null };
  };
  const announceActivity = (chatId: string): void => {
    batcher.flush(chatId);
    events.emit('chat.onDidStream', { kind: 'activity', chatId, activity: activity(chatId) });
  };
  const announceMessage = (message: ChatMessage): void => {
    batcher.flush(message.chatId);
    events.emit('chat.onDidStream', {
      kind: 'message',
      chatId: message.chatId,
      exchangeId: message.exchangeId,
      message: structuredClone(message),
    });
    if (message.role === 'error') {
      events.emit('chat.onDidStream', {
        kind: 'error',
        chatId: message.chatId,
        exchangeId: message.exchangeId,
        error: message.error,
      });
    }
  };

  const reporter = (chatId: string, exchangeId: string, run: Run): LoopReporter => ({
    status(status) {
      if (run.status === status) return;
      run.status = status;
      announceActivity(chatId);
    },
    text: (message, turn, delta) => batcher.push({ chatId, exchangeId, messageId: message.id, turn }, delta),
    toolCall(message, turn, call) {
      batcher.flush(chatId);
      events.emit('chat.onDidStream', {
        kind: 'tool-call',
        chatId,
        exchangeId,
        messageId: message.id,
        turn,
        call: structuredClone(call),
      });
    },
    message: announceMessage,
  });

  /** Starts the chat's exchange in the background; one at a time per chat. */
  const start = (chatId: string, exchangeId: string, work: (exchange: ExchangeRun) => Promise<void>): void => {
    const run: Run = { exchangeId, controller: new AbortController(), status: 'generating', done: Promise.resolve() };
    runs.set(chatId, run);
    const exchange: ExchangeRun = {
      chat: chats.get(chatId),
      exchangeId,
      signal: run.controller.signal,
      report: reporter(chatId, exchangeId, run),
    };
    announceActivity(chatId);
    run.done = (async () => {
      try {
        await work(exchange);
      } catch (error) {
        onError(error);
      } finally {
        if (runs.get(chatId) === run) runs.delete(chatId);
        try {
          chats.touch(chatId);
          announceActivity(chatId);
        } catch {
          // The chat was deleted meanwhile: nothing is left to announce.
        }
      }
    })();
  };

  /**
   * Writes resolutions (already claimed and recorded) into the calls that waited, and goes on once none of the
   * exchange waits: runs what was allowed — each call re-checked against the deny rules as it runs — then generates.
   */
  const apply = (chatId: string, resolutions: readonly ApprovalResolution[]): void => {
    const exchangeId = resolutions[0]?.exchangeId;
    if (!exchangeId) return;
    const applied = loop.applyResolutions(chatId, exchangeId, resolutions);
    if (!applied) return;
    announceMessage(applied.message);
    if (!applied.settled) return;
    if (applied.message.end === 'aborted') return announceActivity(chatId);
    start(chatId, exchangeId, (exchange) => loop.resume(exchange, applied.message));
  };

  // Deleting a chat stops its exchange (its messages, grants and waiting approvals go with it in SQLite).
  const unsubscribeChats = chats.onDidChange((change) => {
    if (change.kind === 'deleted') runs.get(change.id)?.controller.abort();
  });

  const sendUser = (chatId: string, text: string, attachments?: readonly ResourceAttachment[]): ChatSendOutput => {
    const chat = chats.get(chatId);
    const current = activity(chatId);
    if (current.status !== 'idle') {
      throw new WorkbenchError(
        'conflict',
        current.status === 'waiting-approval'
          ? 'Tool calls in this chat wait for your decision: answer them (or stop the reply) before sending a new message.'
          : 'This chat is still replying: wait for the reply, or stop it, before sending a new message.',
        { activity: current },
      );
    }
    if (chat.providerId === null || chat.model === null) {
      throw new WorkbenchError(
        'invalid_input',
        'This chat has no model yet: pick a provider and a model for it, then send again.',
      );
    }
    const exchangeId = randomUUID();
    const message = messages.append(
      {
        role: 'user',
        chatId,
        exchangeId,
        text,
        ...(attachments && attachments.length > 0 ? { attachments: [...attachments] } : {}),
      },
      now(),
    ) as UserChatMessage;
    if (message.seq === 1 && chat.title === DEFAULT_CHAT_TITLE) chats.rename(chatId, titleFrom(text));
    announceMessage(message);
    start(chatId, exchangeId, (exchange) => loop.run(exchange));
    return { exchangeId, message };
  };

  /** The person's path, top to bottom: check → claim with its audit rows (one transaction) → approval message → apply → resume. */
  const sendApproval = (
    chatId: string,
    toolCallApprovals: readonly ToolCallApproval[],
    origin?: DecisionOrigin,
  ): ChatSendOutput => {
    chats.get(chatId);
    const current = state(chatId);
    if (current.kind !== 'waiting-approval' || !current.exchangeId) {
      throw new WorkbenchError(
        'invalid_input',
        'No tool call in this chat waits for a decision, so there is nothing to approve or deny.',
      );
    }
    const { exchangeId } = current;
    // Checked (schema, deny rules, every waiting call answered once), claimed and recorded as one; throws, changing nothing.
    const resolutions = pending.submit(chatId, toolCallApprovals, origin);
    const message = messages.append(
      { role: 'approval', chatId, exchangeId, toolCallApprovals: [...toolCallApprovals] },
      now(),
    );
    announceMessage(message);
    apply(chatId, resolutions);
    return { exchangeId, message: message as Extract<ChatMessage, { role: 'approval' }>, resolutions };
  };

  const stop = (chatId: string): { stopped: boolean } => {
    chats.get(chatId);
    const run = runs.get(chatId);
    const exchangeId = run?.exchangeId ?? pending.list(chatId)[0]?.exchangeId ?? null;
    run?.controller.abort();
    dependencies.serverRequests?.cancelChat(chatId);
    const cancelled = pending.cancelAll(chatId);
    apply(chatId, cancelled);
    const stopped = run !== undefined || cancelled.length > 0;
    if (stopped && exchangeId) {
      announceMessage(
        messages.append(
          { role: 'system', kind: 'stopped', chatId, exchangeId, text: 'You stopped this reply.' },
          now(),
        ),
      );
    }
    if (stopped) announceActivity(chatId);
    return { stopped };
  };

  const handle = (event: ExchangeEvent): void => {
    switch (event.kind) {
      case 'stop':
        stop(event.chatId);
        return;
      case 'unattended':
        apply(event.chatId, pending.denyUnattended(event.chatId, event.reason));
        return;
      case 'timeout':
        try {
          apply(event.chatId, pending.expire(event.chatId));
        } catch (error) {
          // The calls stay waiting (nothing runs); a person can still answer them.
          onError(error);
        }
        return;
    }
  };

  async function settled(chatId: string): Promise<ChatActivity> {
    for (let run = runs.get(chatId); run; run = runs.get(chatId)) await run.done;
    return activity(chatId);
  }

  return {
    send: (chatId, message, origin) =>
      message.role === 'user'
        ? sendUser(chatId, message.text, message.attachments)
        : sendApproval(chatId, message.toolCallApprovals, origin),
    stop,
    cancelTask: (chatId, toolCallId) => {
      chats.get(chatId);
      return loop.cancelTask(chatId, toolCallId);
    },
    handle,
    state(chatId) {
      chats.get(chatId);
      return state(chatId);
    },
    messages(chatId, options) {
      chats.get(chatId);
      return { ...messages.page(chatId, options), activity: activity(chatId) };
    },
    activity(chatId) {
      chats.get(chatId);
      return activity(chatId);
    },
    settled,
    sample(origin, params) {
      if (!dependencies.serverRequests)
        return Promise.reject(new WorkbenchError('unavailable', 'Sampling is not available here.'));
      return dependencies.serverRequests.sample(origin, params);
    },
    elicit(origin, params) {
      if (!dependencies.serverRequests) return Promise.resolve({ action: 'decline' });
      return dependencies.serverRequests.elicit(origin, params);
    },
    serverRequests(chatId) {
      if (chatId) chats.get(chatId);
      return dependencies.serverRequests?.list(chatId) ?? [];
    },
    decideServerRequest(id, decision, origin) {
      if (!dependencies.serverRequests)
        throw new WorkbenchError('not_found', 'No server request waits by that id.', { id });
      return dependencies.serverRequests.decide(id, decision, origin);
    },
    async dispose() {
      unsubscribeChats();
      dependencies.serverRequests?.dispose();
      const active = [...runs.values()];
      for (const run of active) run.controller.abort();
      await Promise.all(active.map((run) => run.done));
      batcher.dispose();
    },
  };
}
