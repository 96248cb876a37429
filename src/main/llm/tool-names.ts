import { createHash } from 'node:crypto';

/** The longest tool name every provider accepts (OpenAI's limit; Anthropic and Gemini allow 128). */
export const PROVIDER_TOOL_NAME_MAX_LENGTH = 64;
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const SEPARATOR = '__';

/**
 * The name a provider sees for an MCP server's tool: `<server>__<tool>`, which all three wire formats accept
 * (letters, digits, `_` and `-`, starting with a letter or `_`, at most 64 characters). When the plain form would
 * break those rules — other characters, too long, or a server name that itself contains `__` and so would
 * make the split ambiguous — the name is sanitized, shortened and given `_` plus 8 hex digits of the SHA-256 of
 * server and tool, so it stays unique and is the same every time for the same pair.
 *
 * The loop keeps the reverse mapping (safe name → server, tool) for the tools it offers in each request;
 * the demo provider uses this same function to find the tool a `/tool SERVER.TOOL` command names.
 */
export function providerToolName(serverName: string, toolName: string): string {
  const plain = `${serverName}${SEPARATOR}${toolName}`;
  if (SAFE_NAME.test(plain) && plain.length <= PROVIDER_TOOL_NAME_MAX_LENGTH && !serverName.includes(SEPARATOR))
    return plain;
  const hash = createHash('sha256').update(`${serverName}\u0000${toolName}`).digest('hex').slice(0, 8);
  let base = plain.replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  return `${base.slice(0, PROVIDER_TOOL_NAME_MAX_LENGTH - hash.length - 1)}_${hash}`;
}
