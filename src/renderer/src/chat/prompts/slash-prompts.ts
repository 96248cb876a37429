import type { McpPrompt } from '../../../../shared/mcp';
export { promptText } from '../../../../shared/prompt-text';

/**
 * Slash commands from the servers' prompts (docs/user/mcp-servers.md#prompts): what is being typed after "/", the
 * prompts that match it, and the text a fetched prompt puts in the message box for the person to read before sending.
 */

/** The word after a leading "/" while it is the whole input (no space yet), else null. */
export function slashQuery(text: string): string | null {
  const match = /^\/([^\s]*)$/.exec(text);
  return match ? (match[1] ?? '') : null;
}

/** Prompts whose name, title or server contain the query (any case), names that start with it first. */
export function matchingPrompts(prompts: readonly McpPrompt[], query: string): McpPrompt[] {
  const wanted = query.toLowerCase();
  const hits = prompts.filter((prompt) =>
    `${prompt.server}:${prompt.name} ${prompt.title ?? ''}`.toLowerCase().includes(wanted),
  );
  return hits.sort(
    (a, b) => Number(!a.name.toLowerCase().startsWith(wanted)) - Number(!b.name.toLowerCase().startsWith(wanted)),
  );
}

/** The arguments a person must still fill in: the required ones left empty. */
export function missingArguments(prompt: McpPrompt, values: Readonly<Record<string, string>>): string[] {
  return prompt.arguments
    .filter((argument) => argument.required && (values[argument.name] ?? '').trim() === '')
    .map((argument) => argument.name);
}
