import { z } from './zod';
import { formatByteSize } from './byte-size';
import { ChatIdSchema } from './chat';
import { SandboxGrantSchema } from './sandbox';
import type { ServerRequestAction, Verdict } from './decisions';
import { ResolutionOutcomeSchema, ServerRequestActionSchema, VerdictSchema } from './decision-schemas';

/**
 * What an MCP server asks of the person or the model while it works (docs/user/server-requests.md): to sample the
 * chat's model (`sampling/createMessage`) or to ask the person something (`elicitation/create`). Each is decided
 * like a tool call: a card in the chat whose tool call made it (or in "Server requests" when no chat is running
 * one of the server's tools), the policy first, every decision in the audit log.
 */

/** Per server: whether it may sample the chat's model, and how many tokens it may have the model write per chat. */
export const SamplingPolicySchema = VerdictSchema;
export type SamplingPolicy = Verdict;
export { DEFAULT_SAMPLING_TOKEN_BUDGET, MAX_SAMPLING_TOKEN_BUDGET } from './closed-sets';

/** The names deny rules match for a server's requests: `{ server: "Everything", tool: "sampling" }` stops its sampling. */
export const SERVER_REQUEST_RULE_NAMES = { sampling: 'sampling', elicitation: 'elicitation' } as const;

export const ServerRequestIdSchema = z.string().min(1).max(100);

/** The most base64 of one image a card shows as a thumbnail; a larger image is named with its type and size only. */
export const SAMPLING_IMAGE_PREVIEW_MAX_CHARS = 2_000_000;

/** A part of a sampling message that is not text: its type and size, and an image's base64 when the card may show it. */
export const SamplingMediaViewSchema = z.object({
  type: z.enum(['image', 'audio']),
  mimeType: z.string(),
  bytes: z.number().int().nonnegative(),
  /** Only for an image of a plain image/* type in valid base64, at most SAMPLING_IMAGE_PREVIEW_MAX_CHARS. */
  data: z.string().optional(),
});
export type SamplingMediaView = z.infer<typeof SamplingMediaViewSchema>;

/** "image image/png, 12 KB": a medium in words, the same on the card, in the CLI and in the audit log. */
export function samplingMediaWords(media: SamplingMediaView): string {
  return `${media.type} ${media.mimeType}, ${formatByteSize(media.bytes)}`;
}

export const SamplingMessageViewSchema = z.object({
  role: z.enum(['user', 'assistant']),
  /** The message's text parts, joined: what the person may edit. */
  text: z.string(),
  /** Its images and audio, in order: kept as they are when the text is edited. */
  media: z.array(SamplingMediaViewSchema).optional(),
});
export type SamplingMessageView = z.infer<typeof SamplingMessageViewSchema>;

export const ModelPreferencesViewSchema = z.object({
  hints: z.array(z.string()),
  costPriority: z.number().nullable(),
  speedPriority: z.number().nullable(),
  intelligencePriority: z.number().nullable(),
});

export const SamplingAnswerViewSchema = z.object({
  text: z.string(),
  model: z.string(),
  stopReason: z.string(),
  outputTokens: z.number().int().nonnegative(),
});
export type SamplingAnswerView = z.infer<typeof SamplingAnswerViewSchema>;

const RequestBaseSchema = z.object({
  id: ServerRequestIdSchema,
  serverName: z.string(),
  /** The chat whose tool call the server was running; null when no chat (or more than one) was running one. */
  chatId: ChatIdSchema.nullable(),
  /** Epoch ms. */
  createdAt: z.number(),
  /** When the request ends as timed out unless someone decides (epoch ms); null or absent: it waits without a limit. */
  expiresAt: z.number().nullable().optional(),
  /**
   * Only in a listing, for a request another running process holds (docs/user/approvals.md#one-inbox): its pid and
   * what it is, in words ("workbench chat"). It is answered through the answers inbox, with the answers another
   * process may give; never part of a stored request.
   */
  heldElsewhere: z.object({ pid: z.number().int().nonnegative(), process: z.string().max(200) }).optional(),
});

export const SamplingRequestViewSchema = RequestBaseSchema.extend({
  kind: z.literal('sampling'),
  /** `request`: may the server send this to the model? `answer`: may this answer go back to the server? */
  stage: z.enum(['request', 'answer']),
  messages: z.array(SamplingMessageViewSchema),
  systemPrompt: z.string().nullable(),
  maxTokens: z.number().int(),
  temperature: z.number().nullable(),
  modelPreferences: ModelPreferencesViewSchema.nullable(),
  /** The provider and model that answer (the chat's, or the first provider's default). */
  model: z.object({ providerId: z.string(), model: z.string() }).nullable(),
  /** Tokens the model wrote for this server in this chat so far, and the most it may. */
  budget: z.object({ used: z.number().int().nonnegative(), limit: z.number().int().nonnegative() }),
  answer: SamplingAnswerViewSchema.nullable(),
});
export type SamplingRequestView = z.infer<typeof SamplingRequestViewSchema>;

export const ElicitationFormViewSchema = RequestBaseSchema.extend({
  kind: z.literal('elicitation'),
  mode: z.literal('form'),
  message: z.string(),
  /** The restricted JSON Schema of MCP elicitation: a flat object of strings, numbers, booleans and enums. */
  requestedSchema: z.record(z.string(), z.unknown()),
});
export const ElicitationUrlViewSchema = RequestBaseSchema.extend({
  kind: z.literal('elicitation'),
  mode: z.literal('url'),
  message: z.string(),
  url: z.string(),
  elicitationId: z.string(),
});
export type ElicitationFormView = z.infer<typeof ElicitationFormViewSchema>;
export type ElicitationUrlView = z.infer<typeof ElicitationUrlViewSchema>;

/**
 * A request to widen a server's sandbox profile by one grant (docs/user/sandbox.md#widening), asked from a block the
 * server ran into: allowed once (the grant is added) or denied.
 */
export const SandboxWideningRequestViewSchema = RequestBaseSchema.extend({
  kind: z.literal('sandbox-widening'),
  grant: SandboxGrantSchema,
  /** What it grants, in words: "Files may read /home/me/notes (and everything in it)". */
  description: z.string(),
  /** The tool call whose block it was made from, if any. */
  toolCallId: z.string().optional(),
});
export type SandboxWideningRequestView = z.infer<typeof SandboxWideningRequestViewSchema>;

/**
 * A tool call a server's MCP Apps view asks for and the policy asks the person about (docs/user/mcp-apps.md#what-a-view-may-ask):
 * waits in the one pending store like a server's request, answered `allow-once`, `allow-chat` or `deny`. Its id starts
 * with `app:`; `viewCallId` is the tool call whose view asked, in `chatId`; the server is that call's.
 */
export const AppToolCallViewSchema = RequestBaseSchema.extend({
  kind: z.literal('app-tool-call'),
  chatId: ChatIdSchema,
  viewCallId: z.string(),
  /** The view's `ui://` resource. */
  viewUri: z.string().optional(),
  toolName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  args: z.record(z.string(), z.unknown()),
  definitionHash: z.string(),
  /** Why the policy asked, in words. */
  reason: z.string(),
});
export type AppToolCallView = z.infer<typeof AppToolCallViewSchema>;

/** A request a server's MCP session makes of the model or the person: sampling or elicitation. */
export const McpServerRequestViewSchema = z.union([
  SamplingRequestViewSchema,
  ElicitationFormViewSchema,
  ElicitationUrlViewSchema,
]);
export type McpServerRequestView = z.infer<typeof McpServerRequestViewSchema>;

/** What waits in the one pending store held open by this process: a server's request, or a tool call its view asks for. */
export const HeldRequestViewSchema = z.union([McpServerRequestViewSchema, AppToolCallViewSchema]);
export type HeldRequestView = z.infer<typeof HeldRequestViewSchema>;

/** Everything a server (its sandbox, its view) asks that waits on a person, apart from the model's tool calls (`approvals.*`). */
export const ServerRequestViewSchema = z.union([
  McpServerRequestViewSchema,
  SandboxWideningRequestViewSchema,
  AppToolCallViewSchema,
]);
export type ServerRequestView = z.infer<typeof ServerRequestViewSchema>;

/**
 * The person's answer. Sampling, first stage: `allow-once`, `allow-chat` or `deny`, with the messages' texts and the
 * system prompt as edited; second stage (the model's answer): `send` (with the text as edited) or `deny`.
 * Elicitation: `accept` (with the form's content; for a URL: the person confirmed, and the page opens it),
 * `decline` or `cancel`, as the MCP spec names them.
 */
export { ServerRequestActionSchema };
export type { ServerRequestAction };

export const ElicitationValueSchema = z.union([
  z.string().max(100_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(10_000)).max(1_000),
]);

export const ServerRequestDecisionSchema = z.strictObject({
  action: ServerRequestActionSchema,
  messages: z.array(z.string().max(1_000_000)).max(1_000).optional(),
  systemPrompt: z.string().max(1_000_000).optional(),
  text: z.string().max(1_000_000).optional(),
  content: z.record(z.string(), ElicitationValueSchema).optional(),
  reason: z.string().max(2_000).optional(),
});
export type ServerRequestDecision = z.infer<typeof ServerRequestDecisionSchema>;

export const ServerRequestsListInputSchema = z.strictObject({ chatId: ChatIdSchema.nullable().optional() }).optional();
export const ServerRequestsListOutputSchema = z.object({ requests: z.array(ServerRequestViewSchema) });
export const ServerRequestDecideInputSchema = z.strictObject({
  id: ServerRequestIdSchema,
  decision: ServerRequestDecisionSchema,
});
export const ServerRequestDecideOutputSchema = z.object({
  /** The request as it waits now (a sampling request's answer stage), or null once it is done. */
  request: ServerRequestViewSchema.nullable(),
});
export const ServerRequestsChangeSchema = z.object({
  kind: z.enum(['waiting', 'resolved']),
  request: ServerRequestViewSchema,
  /** For `resolved`: what became of it, in words ("Denied by you", "Timed out"). */
  outcome: z.string().optional(),
});
export type ServerRequestsChange = z.infer<typeof ServerRequestsChangeSchema>;

/**
 * How a server's request that waited in the pending store was resolved (docs/dev/architecture.md "One engine"): the
 * resolution, who gave it, the person's answer in MCP's words, and why when the system resolved it.
 */
export const WaitingServerRequestResolutionSchema = z.object({
  outcome: ResolutionOutcomeSchema,
  actor: z.enum(['user', 'system']),
  action: ServerRequestActionSchema.nullable(),
  reason: z.string().nullable(),
  decidedAt: z.number(),
});
export type WaitingServerRequestResolution = z.infer<typeof WaitingServerRequestResolutionSchema>;
