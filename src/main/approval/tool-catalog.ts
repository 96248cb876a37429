import type { ToolDefinition } from '../../shared/tool';

/**
 * Where the approval engine looks up a tool's current definition (annotations, definition hash) when
 * a caller has none at hand, as `policy.explain` does. The MCP host's tool registry implements it.
 */
export interface ToolCatalog {
  /** The tool as its server offers it now; undefined when no connected server offers it. */
  find(serverName: string, toolName: string): ToolDefinition | undefined;
}

/** Knows no tools: until an MCP host is wired, `explain` says so and annotations and grants cannot apply. */
export const EMPTY_TOOL_CATALOG: ToolCatalog = { find: () => undefined };
