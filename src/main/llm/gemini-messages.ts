import type { Content, FunctionDeclaration, Part } from '@google/genai';
import type { ContentPart, ConversationMessage, ModelToolCall, ToolSpec } from './conversation';
import { toGeminiParameters } from './gemini-schema';
import { mergeToolBatches, resultText } from './adapter-helpers';
import { toolArgumentsObject } from './tool-arguments';

/** Ids this provider made up for Gemini's id-less calls start with this; they are never sent back to Gemini. */
export const MADE_UP_ID_PREFIX = 'wb-gemini-';

/** Where a call's thought signature is kept in `ModelToolCall.providerMetadata`. */
export interface GeminiCallMetadata {
  gemini?: { thoughtSignature?: string };
}

export function thoughtSignatureOf(call: ModelToolCall): string | undefined {
  return (call.providerMetadata as GeminiCallMetadata | undefined)?.gemini?.thoughtSignature;
}

/**
 * The neutral conversation as Gemini contents. Tool results are `functionResponse` parts (`{ output }`, or `{ error }`
 * when the call failed) answering by name — and by id only when Gemini gave one; images a tool returned follow as
 * `inlineData` parts in the same content. Consecutive user-side messages become one content, because Gemini wants
 * user and model turns to alternate. Function calls go back with the thought signature they came with.
 */
export function toGeminiContents(messages: readonly ConversationMessage[]): Content[] {
  const out: Content[] = [];
  const append = (role: 'user' | 'model', parts: Part[]): void => {
    const last = out.at(-1);
    if (last?.role === role) last.parts?.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of mergeToolBatches(messages)) {
    switch (message.role) {
      case 'user':
        append('user', message.content.map(part));
        break;
      case 'assistant': {
        const parts: Part[] = [
          ...(message.text === '' ? [] : [{ text: message.text }]),
          ...message.toolCalls.map((call): Part => {
            const signature = thoughtSignatureOf(call);
            return {
              functionCall: {
                name: call.name,
                args: toolArgumentsObject(call.arguments),
                ...(call.id.startsWith(MADE_UP_ID_PREFIX) ? {} : { id: call.id }),
              },
              ...(signature ? { thoughtSignature: signature } : {}),
            };
          }),
        ];
        if (parts.length > 0) append('model', parts);
        break;
      }
      case 'tool': {
        const responses = message.results.map((result): Part => ({
          functionResponse: {
            name: result.toolName,
            response: result.isError ? { error: resultText(result) } : { output: resultText(result) },
            ...(result.toolCallId.startsWith(MADE_UP_ID_PREFIX) ? {} : { id: result.toolCallId }),
          },
        }));
        const images = message.results.flatMap((result) =>
          result.content.filter((content) => content.type === 'image').map(part),
        );
        append('user', [...responses, ...images]);
        break;
      }
    }
  }
  return out;
}

export function toGeminiFunctionDeclarations(tools: readonly ToolSpec[]): FunctionDeclaration[] {
  return tools.map((tool) => {
    const parameters = toGeminiParameters(tool.inputSchema);
    return { name: tool.name, description: tool.description, ...(parameters ? { parameters } : {}) };
  });
}

function part(content: ContentPart): Part {
  return content.type === 'text'
    ? { text: content.text }
    : { inlineData: { mimeType: content.mimeType, data: content.data } };
}
