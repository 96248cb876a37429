import type { ChatMessage } from '../../shared/messages';
import type { ConversationMessage, UserMessage } from '../llm/conversation';
import { toolResultFor } from './tool-results';

/**
 * The clean conversation a provider is sent (docs/dev/architecture.md "Messages"): user words, the model's turns with their tool
 * calls, and one result for each call. Approval messages, system notices and errors are bookkeeping for people and
 * the audit log; they are never sent. Consecutive user messages (after a failed exchange) are joined into one,
 * because some providers require turns to alternate.
 */
export function conversationOf(messages: readonly ChatMessage[]): ConversationMessage[] {
  const conversation: ConversationMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const last = conversation.at(-1);
      if (last?.role === 'user') {
        conversation[conversation.length - 1] = { role: 'user', content: [...last.content, { type: 'text', text: message.text }] } satisfies UserMessage;
      } else {
        conversation.push({ role: 'user', content: [{ type: 'text', text: message.text }] });
      }
      continue;
    }
    if (message.role !== 'assistant') continue;
    for (const turn of message.reply.turns) {
      const calls = turn.toolCalls ?? [];
      const text = turn.message ?? '';
      if (text === '' && calls.length === 0) continue;
      conversation.push({ role: 'assistant', text, toolCalls: calls.map((call) => call.modelCall) });
      if (calls.length > 0) conversation.push({ role: 'tool', results: calls.map(toolResultFor) });
    }
  }
  return conversation;
}
