import type { ChatActivity, ChatMessagesOutput, ChatSendOutput, OutgoingMessage } from '../../shared/messages';
import type { MessageStore } from './message-store';

/**
 * Chats as conversations: the ONE tool loop of ARCHITECTURE.md §4 behind seed 000's message flow, for every
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
  /** Stops every exchange (as `stop` does, but leaving waiting approvals to be answered after a restart) and waits for them. */
  dispose(): Promise<void>;
}

/** Placeholder until the loop lands (this commit only fixes the contract): messages are read, nothing is sent. */
export function createConversationsPlaceholder(store: MessageStore): Conversations {
  const idle = (): ChatActivity => ({ status: 'idle', exchangeId: null });
  const unavailable = (): never => {
    throw new (class extends Error {
      code = 'unavailable';
    })('The tool loop is not built yet.');
  };
  return {
    send: unavailable,
    stop: () => ({ stopped: false }),
    messages: (chatId, options) => ({ ...store.page(chatId, options), activity: idle() }),
    activity: idle,
    settled: async () => idle(),
    dispose: async () => {},
  };
}
