import type { McpGetPromptOutput } from './mcp';

/**
 * A fetched prompt as the text of one message, for the person to read before sending (docs/user/mcp-servers.md#prompts):
 * one message is its text; several say whose each is, separated by a blank line.
 */
export function promptText(result: Pick<McpGetPromptOutput, 'messages'>): string {
  if (result.messages.length === 1) return result.messages[0]?.text ?? '';
  return result.messages
    .map((message) => `${message.role === 'user' ? 'User' : 'Assistant'}: ${message.text}`)
    .join('\n\n');
}
