import type { ServerFactsByName } from '../../shared/server-identity';

/**
 * Which MCP servers the user trusts: those whose `mcpServers.<name>.trusted` is set. The MCP settings
 * are the one place trust is kept; the approval engine only reads it (step 7 of the pipeline).
 */
export interface TrustedServers {
  /** The names (keys in `mcpServers`) of the trusted servers now. */
  names(): readonly string[];
  /** Every configured server's identity and former names (docs/dev/architecture.md, "Server identity"); none without it. */
  facts?(): ServerFactsByName;
  /** Called after any change of the MCP settings; `names()` then tells what is trusted. */
  onDidChange(listener: () => void): () => void;
}

/** No server is trusted: what the engine uses when no MCP settings are wired (nothing is auto-allowed by its hints). */
export const NO_TRUSTED_SERVERS: TrustedServers = { names: () => [], onDidChange: () => () => {} };

export function sameNames(left: readonly string[], right: readonly string[]): boolean {
  if (left.length !== right.length) return false;
  const set = new Set(left);
  return right.every((name) => set.has(name));
}
