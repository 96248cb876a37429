import { createHash } from 'node:crypto';

/** What providers accept as a function name (OpenAI, Anthropic, Gemini agree on this subset). */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;
const SEPARATOR = '__';

export interface ToolKey {
  serverName: string;
  toolName: string;
}

const keyOf = ({ serverName, toolName }: ToolKey): string => `${serverName}\u0000${toolName}`;
const sanitize = (text: string): string => text.replace(/[^a-zA-Z0-9_-]/g, '_');

/**
 * Gives every tool a provider-safe name, `<server>__<tool>`, unique across all servers.
 * When that text would lose information (characters replaced, cut to fit 64) or collide with
 * another tool's (providers may compare names case-insensitively), the name ends in a hash of
 * the exact server and tool names instead. The result depends only on the set of tools, never
 * on their order, and the returned map takes each name back to exactly one tool.
 */
export function assignProviderNames(tools: readonly ToolKey[]): Map<string, ToolKey> {
  const unique = [...new Map(tools.map((tool) => [keyOf(tool), tool])).values()];
  const hashLength = new Map<string, number>();
  const nameOf = (tool: ToolKey): string => {
    const length = hashLength.get(keyOf(tool));
    return length === undefined ? plainName(tool) : hashedName(tool, length);
  };
  for (const tool of unique) if (plainName(tool) === '') hashLength.set(keyOf(tool), 8);
  // Lengthen the hashes of colliding names until none collide; 32 hex digits (128 bits) of distinct keys do not collide.
  for (let round = 0; round < 8; round++) {
    const groups = new Map<string, ToolKey[]>();
    for (const tool of unique) {
      const name = nameOf(tool).toLowerCase();
      groups.set(name, [...(groups.get(name) ?? []), tool]);
    }
    const colliding = [...groups.values()].filter((group) => group.length > 1).flat();
    if (colliding.length === 0) break;
    for (const tool of colliding) hashLength.set(keyOf(tool), Math.min(32, (hashLength.get(keyOf(tool)) ?? 4) * 2));
  }
  return new Map(unique.map((tool) => [nameOf(tool), tool]));
}

/** `<server>__<tool>` when both are already provider-safe and it fits; '' otherwise. */
function plainName({ serverName, toolName }: ToolKey): string {
  const name = `${serverName}${SEPARATOR}${toolName}`;
  return sanitize(serverName) === serverName && sanitize(toolName) === toolName && name.length <= MAX_LENGTH
    ? name
    : '';
}

function hashedName({ serverName, toolName }: ToolKey, hashLength: number): string {
  const hash = createHash('sha256').update(keyOf({ serverName, toolName })).digest('hex').slice(0, hashLength);
  const room = MAX_LENGTH - hash.length - 1 - SEPARATOR.length;
  const server = sanitize(serverName).slice(0, Math.min(20, Math.max(1, room - 1)));
  const tool = sanitize(toolName).slice(0, Math.max(0, room - server.length));
  return `${server}${SEPARATOR}${tool}_${hash}`;
}
