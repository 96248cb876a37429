import type { McpPrompt } from '../shared/mcp';
import { promptText } from '../shared/prompt-text';
import { INTERRUPTED, type LineReader } from './line-reader';
import type { CliSession } from './session';
import type { Colors } from './terminal';
import { sanitizeForTerminal } from './terminal-text';

/**
 * A server's prompts as slash commands in `workbench chat` (docs/user/mcp-servers.md#prompts): `/prompts` lists
 * them; `/NAME key=value …` (or `/SERVER:NAME`) asks for the required arguments still missing, one per line, shows
 * the prompt's text, and hands it over to be sent only when the person answers `y` — as the app puts it in the
 * message box to be read first.
 */
export type PromptCommandOutcome =
  { kind: 'send'; text: string } | { kind: 'done' } | { kind: 'interrupted' } | { kind: 'closed' };

export interface PromptCommandDependencies {
  session: Pick<CliSession, 'call' | 'startServers'>;
  reader: LineReader;
  write(text: string): void;
  colors: Colors;
}

/** `key=value` and `key="a value"` pairs after the command. */
export function parsePromptArguments(rest: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of rest.matchAll(/([A-Za-z_][\w.-]*)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g)) {
    const [, key, quoted, bare] = match;
    if (key) values[key] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (bare ?? '');
  }
  return values;
}

/** The prompt a command names: `name`, or `server:name` when names repeat; a reason when there is none or several. */
export function findPrompt(prompts: readonly McpPrompt[], command: string): McpPrompt | string {
  const colon = command.indexOf(':');
  const [server, name] = colon > 0 ? [command.slice(0, colon), command.slice(colon + 1)] : [undefined, command];
  const found = prompts.filter((prompt) => prompt.name === name && (server === undefined || prompt.server === server));
  if (found.length === 1) return found[0] as McpPrompt;
  if (found.length === 0) return `No prompt is named "${command}". /prompts lists them.`;
  return `Several servers have a prompt "${name}": say which, as ${found.map((prompt) => `/${prompt.server}:${prompt.name}`).join(' or ')}.`;
}

export async function runPromptCommand(
  line: string,
  { session, reader, write, colors }: PromptCommandDependencies,
): Promise<PromptCommandOutcome> {
  await session.startServers();
  const { prompts } = await session.call('mcp.prompts', {});
  const show = (text: string): string => sanitizeForTerminal(text);
  const [command = '', ...restWords] = line.slice(1).split(' ');
  if (command === 'prompts') {
    if (prompts.length === 0) write(`${colors.dim('No MCP server offers prompts.')}\n`);
    for (const prompt of prompts) {
      const args = prompt.arguments.map((argument) => `${argument.name}${argument.required ? '*' : ''}`).join(' ');
      write(
        `  ${colors.bold(`/${show(prompt.name)}`)}${args ? ` ${colors.dim(show(args))}` : ''}  ${colors.dim(`(${show(prompt.server)})`)}${prompt.description ? `  ${show(prompt.description)}` : ''}\n`,
      );
    }
    if (prompts.length > 0) write(`${colors.dim('* required. Use one as /NAME key=value …')}\n`);
    return { kind: 'done' };
  }
  const prompt = findPrompt(prompts, command);
  if (typeof prompt === 'string') {
    write(`${colors.yellow(show(prompt))}\n`);
    return { kind: 'done' };
  }
  const values = parsePromptArguments(restWords.join(' '));
  for (const argument of prompt.arguments) {
    if (!argument.required || (values[argument.name] ?? '').trim() !== '') continue;
    // The server's suggestions for it, given what is filled in so far (completion/complete), when it offers any.
    const suggested = await session
      .call('mcp.complete', {
        name: prompt.server,
        prompt: prompt.name,
        argument: argument.name,
        value: '',
        context: values,
      })
      .catch(() => ({ values: [] as string[], hasMore: false }));
    if (suggested.values.length > 0)
      write(
        `${colors.dim(`  suggestions: ${suggested.values.slice(0, 10).map(show).join(', ')}${suggested.hasMore || suggested.values.length > 10 ? ', …' : ''}`)}\n`,
      );
    for (;;) {
      // Plain text: a question is not coloured (the line reader redraws it as typed).
      const answer = await reader.ask(
        `${show(argument.name)}${argument.description ? ` (${show(argument.description)})` : ''}: `,
      );
      if (answer === INTERRUPTED) return { kind: 'interrupted' };
      if (answer === null) return { kind: 'closed' };
      if (answer.trim() !== '') {
        values[argument.name] = answer.trim();
        break;
      }
    }
  }
  let text: string;
  try {
    const result = await session.call('mcp.getPrompt', { name: prompt.server, prompt: prompt.name, arguments: values });
    text = promptText(result);
  } catch (error) {
    write(`${colors.red(`error: ${show(error instanceof Error ? error.message : String(error))}`)}\n`);
    return { kind: 'done' };
  }
  write(
    `${colors.dim(`/${show(prompt.name)} from ${show(prompt.server)}:`)}\n${show(text)
      .split('\n')
      .map((row) => `  ${row}`)
      .join('\n')}\n`,
  );
  for (;;) {
    const answer = await reader.ask('Send it? [y/n] ');
    if (answer === INTERRUPTED) return { kind: 'interrupted' };
    if (answer === null) return { kind: 'closed' };
    const key = answer.trim().toLowerCase();
    if (key === 'y') return { kind: 'send', text };
    if (key === 'n') return { kind: 'done' };
  }
}
