import { McpToolUiSchema } from './mcp-apps';
import { z } from './zod';

/**
 * MCP tool annotations (spec 2025-06-18). They are hints from the server: the approval layer
 * trusts them only for servers the user marked trusted.
 */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

export const JsonSchemaObjectSchema = z.record(z.string(), z.unknown());

/** What defines a tool for approval purposes; its canonical JSON's SHA-256 is the definition hash. */
export const ToolDefinitionContentSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonSchemaObjectSchema,
  outputSchema: JsonSchemaObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  /** Its view and who may call it, from `_meta.ui` (docs/user/mcp-apps.md); part of the hash only when declared. */
  ui: McpToolUiSchema.optional(),
});
export type ToolDefinitionContent = z.infer<typeof ToolDefinitionContentSchema>;

/** A tool as the registry knows it: which server offers it, its definition, and that definition's hash. */
export const ToolDefinitionSchema = ToolDefinitionContentSchema.extend({
  /** The server's key in `mcpServers` (not its display name). */
  serverName: z.string(),
  /** Hex SHA-256 of the canonical JSON of the definition content. */
  definitionHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** When the definition changed since it was first seen: the earlier one, so a person can compare. */
  previous: ToolDefinitionContentSchema.extend({ definitionHash: z.string() }).optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** One call a model asked for, before anyone decided about it. */
export const ToolCallSchema = z.object({
  toolCallId: z.string().min(1),
  serverName: z.string(),
  toolName: z.string(),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;
