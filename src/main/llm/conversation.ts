/**
 * The provider-neutral conversation: what the tool loop sends a provider and what comes back.
 * Every provider adapter translates these into its own wire format and back; nothing here knows
 * about approvals (the clean conversation of docs/dev/architecture.md "Messages").
 */
import { z } from 'zod';
import { FinishReasonSchema, UsageSchema } from '../../shared/llm';
import { ModelToolCallSchema } from '../../shared/messages';

export const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/** An image as base64 bytes (no data: prefix), as MCP tool results and pasted images carry them. */
export const ImagePartSchema = z.object({
  type: z.literal('image'),
  mimeType: z.string().regex(/^image\/[\w.+-]+$/),
  data: z.string(),
});

export const ContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

// The model's tool calls are part of the stored chat (src/shared/messages.ts), so their schemas live there.
export {
  ModelToolCallSchema,
  ToolCallArgumentsSchema,
  type ModelToolCall,
  type ToolCallArguments,
} from '../../shared/messages';

/** What became of one tool call: its text and images, and whether it failed (denied, timed out, errored). */
export const ToolResultSchema = z.object({
  toolCallId: z.string().min(1),
  /** The provider-safe name of the tool that was called (Gemini answers by name). */
  toolName: z.string().min(1),
  content: z.array(ContentPartSchema),
  isError: z.boolean(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

export const UserMessageSchema = z.object({ role: z.literal('user'), content: z.array(ContentPartSchema).min(1) });
export const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  text: z.string(),
  toolCalls: z.array(ModelToolCallSchema),
});
/** The results of tool calls, in the order of the calls; consecutive `tool` messages are one batch. */
export const ToolMessageSchema = z.object({ role: z.literal('tool'), results: z.array(ToolResultSchema).min(1) });

export const ConversationMessageSchema = z.discriminatedUnion('role', [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

/** A tool the model may call. `name` must be provider-safe (see `providerToolName`). */
export const ToolSpecSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/),
  description: z.string(),
  /** JSON Schema of the arguments object; each adapter converts it to what its provider accepts. */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const GenerateRequestSchema = z.object({
  model: z.string().min(1),
  system: z.string().optional(),
  messages: z.array(ConversationMessageSchema),
  tools: z.array(ToolSpecSchema),
  /** The most tokens the reply may have; the adapter's default when absent (Anthropic requires one). */
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type GenerateRequest = z.infer<typeof GenerateRequestSchema>;

/**
 * What a generation streams. Text arrives in deltas; each tool call arrives once, complete; `usage` at most
 * once, near the end; `finish` exactly once, last.
 */
export const GenerateEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), delta: z.string() }),
  z.object({ type: z.literal('tool_call'), call: ModelToolCallSchema }),
  z.object({ type: z.literal('usage'), usage: UsageSchema }),
  z.object({
    type: z.literal('finish'),
    reason: FinishReasonSchema,
    /** The provider's explanation when it gave one (Gemini's finishMessage). */
    message: z.string().optional(),
  }),
]);
export type GenerateEvent = z.infer<typeof GenerateEventSchema>;
