/**
 * What the Demo provider answers, decided from the conversation alone. It is not a model: it reads a few plain
 * commands in the person's last message and turns them into real tool calls on the tools the request offers.
 *
 * What it assumes about the request's tools (it has nothing else to go on):
 * - a tool's provider-safe name is `providerToolName(server, tool)` — `<server>__<tool>` for plain names — or the
 *   bare MCP tool name; so `list files` finds the first tool whose name is or ends with `__list_directory`;
 * - the filesystem server's tools take the arguments of @modelcontextprotocol/server-filesystem: `path` for
 *   list_directory / read_text_file / read_file, `path` and `content` for write_file; relative paths are resolved by
 *   that server against its first allowed directory, so `.` lists it;
 * - `/tool SERVER.TOOL` names the server by its key in mcpServers, exactly as the loop passed it to providerToolName.
 */
import type { ConversationMessage, GenerateRequest, ToolSpec } from './conversation';
import { resultText } from './adapter-helpers';
import { providerToolName } from './tool-names';

export interface DemoPlan {
  text: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
}

const MAX_TOOLS_LISTED = 20;
const MAX_RESULT_CHARS = 400;

export function planDemoReply(request: GenerateRequest): DemoPlan {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: summarize(request.messages), toolCalls: [] };
  const command =
    last?.role === 'user'
      ? last.content
          .flatMap((part) => (part.type === 'text' ? [part.text] : []))
          .join('\n')
          .trim()
      : '';
  return planCommand(command, request.tools);
}

function planCommand(command: string, tools: readonly ToolSpec[]): DemoPlan {
  const list = /^list files(?:\s+(.+))?$/i.exec(command);
  if (list) {
    const path = list[1]?.trim();
    const directory = findTool(tools, 'list_directory');
    if (directory) return call(directory, { path: path ?? '.' });
    const allowed = findTool(tools, 'list_allowed_directories');
    if (allowed && path === undefined) return call(allowed, {});
    return missing('list files', 'list_directory');
  }
  const read = /^read\s+(.+)$/i.exec(command);
  if (read) {
    const tool = findTool(tools, 'read_text_file') ?? findTool(tools, 'read_file');
    return tool ? call(tool, { path: (read[1] as string).trim() }) : missing('read', 'read_text_file');
  }
  const write = /^write\s+([^:\n]+?)\s*:\s?([\s\S]*)$/i.exec(command);
  if (write) {
    const tool = findTool(tools, 'write_file');
    return tool
      ? call(tool, { path: (write[1] as string).trim(), content: write[2] as string })
      : missing('write', 'write_file');
  }
  // The target runs up to the JSON (server names may contain spaces).
  const direct = /^\/tool\s+([^{[]+?)\s*([{[][\s\S]*)?$/.exec(command);
  if (direct) return planToolCommand(direct[1] as string, (direct[2] ?? '').trim(), tools);
  return { text: helpText(tools, command), toolCalls: [] };
}

function planToolCommand(target: string, argsText: string, tools: readonly ToolSpec[]): DemoPlan {
  const tool = resolveTarget(target, tools);
  if (!tool) {
    return { text: `No tool called \`${target}\` is available in this chat. ${availableTools(tools)}`, toolCalls: [] };
  }
  let args: unknown = {};
  if (argsText !== '') {
    try {
      args = JSON.parse(argsText);
    } catch (error) {
      return {
        text: `The arguments after \`/tool ${target}\` must be a JSON object, like \`{"path": "notes.md"}\` (${(error as Error).message}).`,
        toolCalls: [],
      };
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return {
      text: `The arguments after \`/tool ${target}\` must be a JSON object, like \`{"path": "notes.md"}\`.`,
      toolCalls: [],
    };
  }
  return call(tool, args as Record<string, unknown>);
}

/** `SERVER.TOOL`, where either name may itself contain dots; or a provider-safe name as it is. */
function resolveTarget(target: string, tools: readonly ToolSpec[]): ToolSpec | undefined {
  for (let dot = target.indexOf('.'); dot > 0; dot = target.indexOf('.', dot + 1)) {
    const name = providerToolName(target.slice(0, dot), target.slice(dot + 1));
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool) return tool;
  }
  return tools.find((candidate) => candidate.name === target);
}

function findTool(tools: readonly ToolSpec[], mcpName: string): ToolSpec | undefined {
  return tools.find((tool) => tool.name === mcpName || tool.name.endsWith(`__${mcpName}`));
}

function call(tool: ToolSpec, args: Record<string, unknown>): DemoPlan {
  return { text: `Calling \`${tool.name}\` with \`${JSON.stringify(args)}\`.`, toolCalls: [{ name: tool.name, args }] };
}

function missing(command: string, mcpName: string): DemoPlan {
  return {
    text: `\`${command}\` needs a tool called ${mcpName}, and none of this chat's tools has that name. Add the Files server (@modelcontextprotocol/server-filesystem) in Settings → MCP servers, or use \`/tool SERVER.TOOL {…}\`.`,
    toolCalls: [],
  };
}

function availableTools(tools: readonly ToolSpec[]): string {
  if (tools.length === 0)
    return 'No tools are available: add an MCP server (for example the Files server) in Settings.';
  const names = tools.slice(0, MAX_TOOLS_LISTED).map((tool) => `\`${tool.name}\``);
  const more = tools.length > MAX_TOOLS_LISTED ? ` and ${tools.length - MAX_TOOLS_LISTED} more` : '';
  return `Tools available: ${names.join(', ')}${more}.`;
}

function helpText(tools: readonly ToolSpec[], command: string): string {
  const opening =
    command === '' || /^(help|\?)$/i.test(command)
      ? ''
      : `I don't understand "${command.length > 60 ? `${command.slice(0, 60)}…` : command}". `;
  return [
    `${opening}This is the Demo provider — not an AI model. It turns a few commands into real tool calls on your MCP servers, so you can try approvals without an API key:`,
    '',
    '- `list files` or `list files PATH` — list a directory',
    '- `read NAME` — read a file',
    '- `write NAME: TEXT` — write TEXT into the file NAME',
    '- `/tool SERVER.TOOL {"arg": "value"}` — call any tool with JSON arguments',
    '',
    availableTools(tools),
  ].join('\n');
}

/** A short account of the latest batch of tool results, naming each call. */
function summarize(messages: readonly ConversationMessage[]): string {
  const results = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]?.role === 'tool'; index--) {
    const message = messages[index];
    if (message?.role === 'tool') results.unshift(...message.results);
  }
  const lines = results.map((result) => {
    const text = resultText(result);
    const shown =
      text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… (${text.length} characters in all)` : text;
    const images = result.content.filter((part) => part.type === 'image').length;
    const pictures = images > 0 ? ` (and ${images} image${images === 1 ? '' : 's'})` : '';
    return result.isError
      ? `**${result.toolName}** did not succeed: ${shown}${pictures}`
      : `**${result.toolName}** returned${pictures}:\n\n${shown}`;
  });
  return `${lines.join('\n\n')}\n\nType \`help\` for the other commands.`;
}
