import type { ToolResult } from './conversation';

/**
 * A tool result's text parts as one text. Failed results say so first, for the formats that have no error flag
 * (OpenAI) or where the flag is easy for a model to miss; an empty result says it was empty.
 */
export function resultText(result: ToolResult): string {
  const text = result.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  const body = text === '' ? '(no output)' : text;
  return result.isError && !/^error\b/i.test(body) ? `Error: ${body}` : body;
}

/**
 * An input schema as the providers require it: a JSON Schema whose top level is an object. MCP requires
 * `type: 'object'` already; this covers servers that leave it (or `properties`) out.
 */
export function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, type: 'object', properties: schema['properties'] ?? {} };
}
