/** Small pieces the provider adapters share. */
import type { ModelInfo } from '../../shared/llm';
import type { ConversationMessage, ToolResult } from './conversation';

/**
 * A tool result's text parts as one text, exactly as the loop wrote them ("User denied tool invocation" stays
 * word for word); an empty result says it was empty, because some providers refuse empty tool content.
 */
export function resultText(result: ToolResult): string {
  const text = result.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  return text === '' ? '(no output)' : text;
}

/**
 * An input schema as the providers require it: a JSON Schema whose top level is an object. MCP requires
 * `type: 'object'` already; this covers servers that leave it (or `properties`) out.
 */
export function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, type: 'object', properties: schema['properties'] ?? {} };
}

/** Consecutive `tool` messages as one: all results of a batch, in order, whatever pieces the loop stored them in. */
export function mergeToolBatches(messages: readonly ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'tool' && last?.role === 'tool')
      out[out.length - 1] = { role: 'tool', results: [...last.results, ...message.results] };
    else out.push(message);
  }
  return out;
}

/** A model list entry without the fields the provider left empty. */
export function modelInfo(
  id: string,
  label?: string | null,
  contextWindow?: number | null,
  maxOutputTokens?: number | null,
): ModelInfo {
  return {
    id,
    ...(label ? { label } : {}),
    ...(contextWindow ? { contextWindow } : {}),
    ...(maxOutputTokens ? { maxOutputTokens } : {}),
  };
}
