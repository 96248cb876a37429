import type { McpSession } from './mcp-session';
import type { McpCompleteOutput, McpGetPromptOutput, McpPrompt } from '../../shared/mcp';

/**
 * A server's prompts (`prompts/list`, `prompts/get`) and the completion of their arguments (`completion/complete`).
 * Only the person's explicit request reaches these — a slash command in the composer or in `workbench chat` —, never
 * the tool loop or a model (docs/user/mcp-servers.md#prompts).
 */

/** A prompt's text is context for one message, not a download. */
export const PROMPT_TEXT_MAX_CHARS = 1_000_000;
const MAX_PAGES = 50;

export async function listPrompts(server: string, client: McpSession, timeoutMs: number): Promise<McpPrompt[]> {
  if (!client.getServerCapabilities()?.prompts) return [];
  const prompts: McpPrompt[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listPrompts(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const item of result.prompts) {
      prompts.push({
        server,
        name: item.name,
        ...(item.title ? { title: item.title } : {}),
        ...(item.description ? { description: item.description } : {}),
        arguments: (item.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...(argument.description ? { description: argument.description } : {}),
          ...(argument.required ? { required: true } : {}),
        })),
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return prompts;
}

/** What one content part of a prompt message reads as: text itself, a resource's text with its URI, anything else named. */
function contentText(content: Record<string, unknown>): string {
  if (content.type === 'text' && typeof content.text === 'string') return content.text;
  if (content.type === 'resource' && content.resource && typeof content.resource === 'object') {
    const resource = content.resource as { uri?: string; text?: string; mimeType?: string };
    return typeof resource.text === 'string'
      ? `[${resource.uri ?? 'resource'}]\n${resource.text}`
      : `[${resource.uri ?? 'resource'}: ${resource.mimeType ?? 'binary'} content, not included]`;
  }
  if (content.type === 'resource_link') return `[${String(content.uri ?? 'resource link')}]`;
  return `[${String(content.type)}${typeof content.mimeType === 'string' ? ` ${content.mimeType}` : ''}: not included]`;
}

export async function getPrompt(
  server: string,
  client: McpSession,
  prompt: string,
  args: Record<string, string>,
  timeoutMs: number,
): Promise<McpGetPromptOutput> {
  const result = await client.getPrompt({ name: prompt, arguments: args }, { timeout: timeoutMs });
  let room = PROMPT_TEXT_MAX_CHARS;
  const messages = result.messages.map((message) => {
    const text = contentText(message.content as Record<string, unknown>).slice(0, Math.max(0, room));
    room -= text.length;
    return { role: message.role, text };
  });
  return { server, prompt, ...(result.description ? { description: result.description } : {}), messages };
}

export async function completePromptArgument(
  client: McpSession,
  prompt: string,
  argument: string,
  value: string,
  context: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<McpCompleteOutput> {
  if (!client.getServerCapabilities()?.completions) return { values: [], hasMore: false };
  const result = await client.complete(
    {
      ref: { type: 'ref/prompt', name: prompt },
      argument: { name: argument, value },
      ...(context ? { context: { arguments: context } } : {}),
    },
    { timeout: timeoutMs },
  );
  return { values: result.completion.values.slice(0, 100), hasMore: result.completion.hasMore === true };
}
