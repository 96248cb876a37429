import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ContentPart, ConversationMessage, ToolResult, ToolSpec } from './conversation';
import { objectSchema, resultText } from './adapter-helpers';
import { toolArgumentsText } from './tool-arguments';

/**
 * The neutral conversation in chat completions form. Tool results become one `role: 'tool'` message per call;
 * the format has no images in tool messages, so images a tool returned follow the batch in one user message
 * that names the call, and the tool message says so.
 */
export function toOpenAiMessages(
  system: string | undefined,
  messages: readonly ConversationMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = (): void => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: userContent(message.content) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.text === '' ? null : message.text,
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: toolArgumentsText(call.arguments) },
                })),
              }),
        });
        break;
      case 'tool':
        for (const result of message.results) {
          const images = result.content.filter((part) => part.type === 'image');
          const note =
            images.length > 0
              ? `\n[${images.length} image${images.length === 1 ? '' : 's'} returned; sent in the next message]`
              : '';
          out.push({ role: 'tool', tool_call_id: result.toolCallId, content: `${resultText(result)}${note}` });
          if (images.length > 0) pendingImages.push(...imagesOf(result));
        }
        break;
    }
  }
  flushImages();
  return out;
}

export function toOpenAiTools(tools: readonly ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: objectSchema(tool.inputSchema) },
  }));
}

/** Plain text stays a string (every compatible server takes that); text with images becomes parts. */
function userContent(content: readonly ContentPart[]): string | ChatCompletionContentPart[] {
  if (content.every((part) => part.type === 'text')) return content.map((part) => part.text).join('\n\n');
  return content.map((part): ChatCompletionContentPart =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } },
  );
}

function imagesOf(result: ToolResult): ChatCompletionContentPart[] {
  return [
    { type: 'text', text: `Images returned by tool call ${result.toolCallId} (${result.toolName}):` },
    ...result.content.flatMap((part): ChatCompletionContentPart[] =>
      part.type === 'image'
        ? [{ type: 'image_url', image_url: { url: `data:${part.mimeType};base64,${part.data}` } }]
        : [],
    ),
  ];
}
