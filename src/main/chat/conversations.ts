import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalResolution } from '../../shared/approval';
import type { ChatActivity, ChatMessage, ChatMessagesOutput, ChatSendOutput, OutgoingMessage, UserChatMessage } from '../../shared/messages';
import type { PendingApprovals } from '../approval/pending-approvals';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';
import { DEFAULT_CHAT_TITLE, type ChatService } from './chat-service';
import type { MessageStore } from './message-store';
import { createTextBatcher } from './text-batcher';
import type { ExchangeRun, LoopReporter, ToolLoop } from './tool-loop';

/**
 * Chats as conversations: the ONE tool loop (docs/dev/architecture.md "The tool loop") behind seed 000's message flow, for every
 * provider and every front end (app, browser mode, CLI). Progress is announced as `chat.onDidStream` events.
 *
 * Guarantees:
 * - `send` stores the message before it returns; the exchange then goes on in the background.
 * - A user message is refused (`conflict`) while the chat's exchange runs or waits for approvals; an approval
 *   message is refused (`invalid_input`, naming each problem) unless it answers exactly the calls that wait.
 * - No tool runs unless the decision pipeline or a person allowed it, and its decision row is in the audit log first.
 * - What a provider is sent is the clean conversation: tool calls and results, never approval bookkeeping.
 */
export interface Conversations {
  send(chatId: string, message: OutgoingMessage): ChatSendOutput;
  /** Cancels the stream, in-flight tool calls and waiting approvals of the chat's exchange. */
  stop(chatId: string): { stopped: boolean };
  messages(chatId: string, options?: { beforeSeq?: number | undefined; limit?: number | undefined }): ChatMessagesOutput;
  activity(chatId: string): ChatActivity;
  /** Resolves once the chat is idle or waits for a person (for the CLI and tests): what it is doing then. */
  settled(chatId: string): Promise<ChatActivity>;
  /** Stops every running exchange (waiting approvals stay, to be answered after a restart) and waits for them. */
  dispose(): Promise<void>;
}

/** The `chat` settings section. */
export const ChatSettingsSchema = z.strictObject({
  /** Rounds of generation one exchange may take before it is stopped with a notice. */
  maxToolRounds: z.number().int().min(1).max(500).default(20),
});
export type ChatSettings = z.infer<typeof ChatSettingsSchema>;
export const CHAT_SECTION = 'chat';

export interface ConversationsDependencies {
  chats: ChatService;
  messages: MessageStore;
  loop: ToolLoop;
  pending: Pick<PendingApprovals, 'list' | 'submit' | 'cancelAll' | 'onDidResolve'>;
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

/** The `chat` settings section (a bad one throws `SettingsError` naming the field). */
export function openChatSettings(settings: SettingsStore): SettingsSection<ChatSettings> {
  return settings.section(CHAT_SECTION, ChatSettingsSchema, ChatSettingsSchema.parse({}));
}

export function createConversations(dependencies: ConversationsDependencies): Conversations {
  const { chats, messages, loop, pending, events } = dependencies;
  const now = dependencies.now ?? Date.now;
  const onError = dependencies.onError ?? (() => {});
  const runs = new Map<string, Run>();
  const batcher = createTextBatcher(({ chatId, exchangeId, messageId, turn }, delta) => {
    events.emit('chat.onDidStream', { kind: 'text', chatId, exchangeId, messageId, turn, delta });
  }, dependencies.textIntervalMs);

  const activity = (chatId: string): ChatActivity => {
    const run = runs.get(chatId);
    if (run) return { status: run.status, exchangeId: run.exchangeId };
    const waiting = pending.list(chatId)[0];
    return waiting ? { status: 'waiting-approval', exchangeId: waiting.exchangeId } : { status: 'idle', exchangeId: null };
  };
  const announceActivity = (chatId: string): void => {
    batcher.flush(chatId);
    events.emit('chat.onDidStream', { kind: 'activity', chatId, activity: activity(chatId) });
  };
  const announceMessage = (message: ChatMessage): void => {
    batcher.flush(message.chatId);
    events.emit('chat.onDidStream', { kind: 'message', chatId: message.chatId, exchangeId: message.exchangeId, message: structuredClone(message) });
    if (message.role === 'error') {
      events.emit('chat.onDidStream', { kind: 'error', chatId: message.chatId, exchangeId: message.exchangeId, error: message.error });
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
      events.emit('chat.onDidStream', { kind: 'tool-call', chatId, exchangeId, messageId: message.id, turn, call: structuredClone(call) });
    },
    message: announceMessage,
  });

  /** Starts the chat's exchange in the background; one at a time per chat. */
  const start = (chatId: string, exchangeId: string, work: (exchange: ExchangeRun) => Promise<void>): void => {
    const run: Run = { exchangeId, controller: new AbortController(), status: 'generating', done: Promise.resolve() };
    runs.set(chatId, run);
    const exchange: ExchangeRun = { chat: chats.get(chatId), exchangeId, signal: run.controller.signal, report: reporter(chatId, exchangeId, run) };
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

  /** Calls that waited were decided (by a person here, a timeout, or a stop): go on once none of the exchange waits. */
  const onResolved = (resolutions: readonly ApprovalResolution[]): void => {
    const groups = new Map<string, ApprovalResolution[]>();
    for (const resolution of resolutions) {
      const key = `${resolution.chatId}\u0000${resolution.exchangeId ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), resolution]);
    }
    for (const group of groups.values()) {
      const { chatId, exchangeId } = group[0] as ApprovalResolution;
      if (exchangeId === null) continue;
      try {
        const applied = loop.applyResolutions(chatId, exchangeId, group);
        if (!applied) continue;
        announceMessage(applied.message);
        if (!applied.settled) continue;
        if (applied.message.end === 'aborted') {
          announceActivity(chatId);
          continue;
        }
        // After the approval message is stored (send stores it right after the submission returns).
        queueMicrotask(() => start(chatId, exchangeId, (exchange) => loop.resume(exchange, applied.message)));
      } catch (error) {
        onError(error);
      }
    }
  };
  const unsubscribe = pending.onDidResolve(onResolved);
  // Deleting a chat stops its exchange (its messages, grants and waiting approvals go with it in SQLite).
  const unsubscribeChats = events.subscribe((event, payload) => {
    if (event !== 'chat.onDidChange' || (payload as { kind: string }).kind !== 'deleted') return;
    runs.get((payload as { id: string }).id)?.controller.abort();
  });

  const sendUser = (chatId: string, text: string): ChatSendOutput => {
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
      throw new WorkbenchError('invalid_input', 'This chat has no model yet: pick a provider and a model for it, then send again.');
    }
    const exchangeId = randomUUID();
    const message = messages.append({ role: 'user', chatId, exchangeId, text }, now()) as UserChatMessage;
    if (message.seq === 1 && chat.title === DEFAULT_CHAT_TITLE) chats.rename(chatId, titleFrom(text));
    announceMessage(message);
    start(chatId, exchangeId, (exchange) => loop.run(exchange));
    return { exchangeId, message };
  };

  const sendApproval = (chatId: string, toolCallApprovals: Extract<OutgoingMessage, { role: 'approval' }>['toolCallApprovals']): ChatSendOutput => {
    chats.get(chatId);
    const waiting = pending.list(chatId);
    const exchangeId = waiting[0]?.exchangeId;
    if (waiting.length === 0 || !exchangeId) {
      throw new WorkbenchError('invalid_input', 'No tool call in this chat waits for a decision, so there is nothing to approve or deny.');
    }
    // Validated, recorded in the audit log and applied as one; the resolution listener then goes on.
    const resolutions = pending.submit(chatId, toolCallApprovals);
    const message = messages.append({ role: 'approval', chatId, exchangeId, toolCallApprovals }, now());
    announceMessage(message);
    return { exchangeId, message: message as Extract<ChatMessage, { role: 'approval' }>, resolutions };
  };

  async function settled(chatId: string): Promise<ChatActivity> {
    for (;;) {
      for (let run = runs.get(chatId); run; run = runs.get(chatId)) await run.done;
      // A resolution may have queued a resumption that has not started yet.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!runs.has(chatId)) return activity(chatId);
    }
  }

  return {
    send: (chatId, message) => (message.role === 'user' ? sendUser(chatId, message.text) : sendApproval(chatId, message.toolCallApprovals)),
    stop(chatId) {
      chats.get(chatId);
      const run = runs.get(chatId);
      const exchangeId = run?.exchangeId ?? pending.list(chatId)[0]?.exchangeId ?? null;
      run?.controller.abort();
      const cancelled = pending.cancelAll(chatId);
      const stopped = run !== undefined || cancelled.length > 0;
      if (stopped && exchangeId) {
        announceMessage(messages.append({ role: 'system', kind: 'stopped', chatId, exchangeId, text: 'You stopped this reply.' }, now()));
      }
      if (stopped) announceActivity(chatId);
      return { stopped };
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
    async dispose() {
      unsubscribe();
      unsubscribeChats();
      const active = [...runs.values()];
      for (const run of active) run.controller.abort();
      await Promise.all(active.map((run) => run.done));
      batcher.dispose();
    },
  };
}
