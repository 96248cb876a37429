import { z } from './zod';

/**
 * What a tool call produced, normalised from MCP's CallToolResult for the tool loop and the UI.
 * `content` and `structuredContent` are kept whole however large; `forModel` is what a model is sent.
 */

/**
 * One block of a contained server (docs/user/sandbox.md#blocks): what it tried (`read`, `write`, `connect`, `env`),
 * the path, `host:port` or variable, and the sentence the person reads. A result stored with the sentence alone (an
 * older version) keeps it, with nothing to widen from.
 */
export const SandboxBlockViewSchema = z.union([
  z.object({
    kind: z.enum(['read', 'write', 'connect', 'env']),
    target: z.string(),
    text: z.string(),
    /** How many times the call was refused this (the same block is one line with its count). */
    count: z.number().int().min(2).optional(),
  }),
  z.string().transform((text) => ({ text })),
]);
export type SandboxBlockView = z.output<typeof SandboxBlockViewSchema>;

/** Above this many bytes of UTF-8, `forModel.text` is cut (with a note saying so); the rest stays in `content`. */
export const MODEL_RESULT_LIMIT_BYTES = 1024 * 1024;

const AnnotationsSchema = z.record(z.string(), z.unknown()).optional();

export const McpContentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), annotations: AnnotationsSchema }),
  z.object({ type: z.literal('image'), mimeType: z.string(), data: z.string(), annotations: AnnotationsSchema }),
  z.object({ type: z.literal('audio'), mimeType: z.string(), data: z.string(), annotations: AnnotationsSchema }),
  z.object({
    type: z.literal('resource_link'),
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    size: z.number().optional(),
    annotations: AnnotationsSchema,
  }),
  z.object({
    type: z.literal('resource'),
    uri: z.string(),
    mimeType: z.string().optional(),
    /** A text resource's text, or … */
    text: z.string().optional(),
    /** … a binary resource's bytes in base64. */
    blob: z.string().optional(),
    annotations: AnnotationsSchema,
  }),
  /** A content part of a kind this version does not know, kept as the server sent it. */
  z.object({ type: z.literal('unknown'), original: z.unknown() }),
]);
export type McpContent = z.infer<typeof McpContentSchema>;

export const McpToolResultSchema = z.object({
  /** The tool reports a failure (MCP `isError`, or an error the server answered instead of a result). */
  isError: z.boolean(),
  content: z.array(McpContentSchema),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  /** Set when the server answered the call with a JSON-RPC error rather than a result. */
  protocolError: z.object({ code: z.number(), message: z.string() }).optional(),
  /**
   * Set when the server needed a page opened first (MCP -32042) and the person declined or cancelled it: the call was
   * not run. `protocolError` keeps the server's own words (docs/user/server-requests.md, "Elicitation").
   */
  pageDeclined: z.object({ url: z.string(), action: z.enum(['decline', 'cancel']) }).optional(),
  /** Size of the result as UTF-8 JSON, for the audit log and the UI. */
  sizeBytes: z.number().int().nonnegative(),
  /** What the model is sent: one text rendering of every part, cut at MODEL_RESULT_LIMIT_BYTES. */
  forModel: z.object({ text: z.string(), truncated: z.boolean() }),
  /** What the server's sandbox refused it during the call ("Files tried to read /home/me/.ssh/id_rsa — blocked"). */
  sandboxBlocks: z.array(SandboxBlockViewSchema).optional(),
});
export type McpToolResult = z.infer<typeof McpToolResultSchema>;
