import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ContentPart, ConversationMessage, ToolSpec } from './conversation';
import { objectSchema } from './adapter-helpers';
import { toolArgumentsObject } from './tool-arguments';

type UserBlock = Extract<ContentBlockParam, { type: 'text' | 'image' | 'tool_result' }>;
type MediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/**
 * The neutral conversation as Anthropic messages. Tool results are `tool_result` blocks (with `is_error`, text and
 * images) in a user message; everything that would make two user turns in a row — a batch of results, then
 * the person's next words — goes into one user message, results first, as the API requires.
 */
export function toAnthropicMessages(messages: readonly ConversationMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const appendUser = (blocks: UserBlock[]): void => {
    const last = out.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        appendUser(message.content.map(block));
        break;
      case 'assistant': {
        const content: ContentBlockParam[] = [
          // The API refuses empty text blocks.
          ...(message.text === '' ? [] : [{ type: 'text' as const, text: message.text }]),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use' as const,
            id: call.id,
            name: call.name,
            input: toolArgumentsObject(call.arguments),
          })),
        ];
        if (content.length > 0) out.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
        appendUser(
          message.results.map((result) => ({
            type: 'tool_result' as const,
            tool_use_id: result.toolCallId,
            content:
              result.content.length === 0
                ? '(no output)'
                : result.content.map((part) => block(part) as Extract<UserBlock, { type: 'text' | 'image' }>),
            is_error: result.isError,
          })),
        );
        break;
    }
  }
  return out;
}

export function toAnthropicTools(tools: readonly ToolSpec[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: objectSchema(tool.inputSchema) as Tool.InputSchema,
  }));
}

function block(part: ContentPart): UserBlock {
  return part.type === 'text'
    ? { type: 'text', text: part.text }
    : { type: 'image', source: { type: 'base64', media_type: part.mimeType as MediaType, data: part.data } };
}
