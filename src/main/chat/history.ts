import type { ChatMessage, ResourceAttachment } from '../../shared/messages';
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
      const parts: UserMessage['content'] = [
        { type: 'text', text: message.text },
        ...(message.attachments ?? []).map((attachment) => ({
          type: 'text' as const,
          text: attachmentText(attachment),
        })),
      ];
      if (last?.role === 'user') {
        conversation[conversation.length - 1] = {
          role: 'user',
          content: [...last.content, ...parts],
        } satisfies UserMessage;
      } else {
        conversation.push({ role: 'user', content: parts });
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

/**
 * A resource the person attached, as the model reads it: after the message, marked with its server and URI so the
 * model can tell the person's words from the resource's (docs/user/mcp-servers.md#resources).
 */
export function attachmentText(attachment: ResourceAttachment): string {
  const type = attachment.mimeType ? ` type="${attachment.mimeType}"` : '';
  const cut = attachment.truncated ? '\n[cut: the resource is longer]' : '';
  return `<resource server="${attachment.server}" uri="${attachment.uri}"${type}>\n${attachment.text}${cut}\n</resource>`;
}
