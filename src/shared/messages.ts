import { z } from './zod';
import {
  ApprovalResolutionSchema,
  DecisionOutcomeSchema,
  ToolCallApprovalSchema,
  ToolCallRequestSchema,
} from './approval';
import { TOOL_CALL_STATUS_OF, WAITING_APPROVAL } from './decisions';
import { ChatIdSchema } from './chat';
import { WorkbenchErrorDataSchema } from './errors';
import { FinishReasonSchema, UsageSchema } from './llm';
import { McpToolResultSchema } from './mcp-result';
import { ToolAnnotationsSchema, ToolCallSchema } from './tool';
import { ATTACHMENT_TEXT_MAX_LENGTH, MAX_ATTACHMENTS } from './limits';

/**
 * A chat's messages (docs/dev/architecture.md "Messages", seed 000 made durable). A user message starts an **exchange**; every
 * message until the exchange ends carries its id, so a front end shows one assistant message per exchange even
 * when approvals split the work into several replies (seed 000 "NEXT").
 */

// ── What the model asked for ────────────────────────────────────────────────────────────────────

/**
 * A tool's arguments as the model sent them: a parsed JSON object, or, when the model sent text that is not a
 * JSON object, that raw text and what is wrong with it, so the loop answers with an error result instead of running.
 */
export const ToolCallArgumentsSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('parsed'), value: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal('malformed'), raw: z.string(), problem: z.string() }),
]);
export type ToolCallArguments = z.infer<typeof ToolCallArgumentsSchema>;

/**
 * One tool call as the model made it. `id` is the provider's own (made up, stable, for Gemini, which has none);
 * `name` is the provider-safe name the request's tool list gave. `providerMetadata` is opaque data the provider
 * needs back with this call in later requests (Gemini's thought signatures).
 */
export const ModelToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: ToolCallArgumentsSchema,
  providerMetadata: z.record(z.string(), z.unknown()).optional(),
});
export type ModelToolCall = z.infer<typeof ModelToolCallSchema>;

// ── What became of each call ────────────────────────────────────────────────────────────────────

/**
 * Where a call stands. `pending` waits for a person; `running` is in flight; `success`/`error` ran (or failed
 * before it could run: an unknown tool, malformed arguments); `denied` by a rule or a person; `timeout` nobody
 * decided in time; `cancelled` the chat was stopped; `interrupted` the app ended while it ran.
 */
export const ToolCallStatusSchema = z.enum([
  'pending',
  'running',
  'success',
  'error',
  ...Object.values(TOOL_CALL_STATUS_OF),
  'interrupted',
]);
export type ToolCallStatus = z.infer<typeof ToolCallStatusSchema>;

/** Who decided a call, and why, in words (the approval card's "why", the tool block's badge). */
export const ToolCallDecisionInfoSchema = z.object({
  outcome: DecisionOutcomeSchema,
  actor: z.enum(['policy', 'user', 'system']),
  /** "Auto-approved: tool setting 'Files.read_file'", "You chose 'Allow once'", "Denied by your rule #2 …". */
  reason: z.string(),
  /** The person's own words when they denied with a reason. */
  userReason: z.string().optional(),
  /** The person changed the arguments before allowing; `args` are the ones that ran, `originalArgs` the model's. */
  edited: z.boolean().optional(),
  /**
   * Allowed only because approvals were off — in the settings (`global`) or in this chat (`chat`, "never ask"); the
   * block says so (docs/user/approvals.md#when-approvals-are-off).
   */
  approvalsOff: z.enum(['global', 'chat']).optional(),
});
export type ToolCallDecisionInfo = z.infer<typeof ToolCallDecisionInfoSchema>;

/**
 * One tool call in a turn and everything that became of it (seed 000's ToolCallResult). `serverName`/`toolName`
 * are empty when the model named a tool nobody offers; `args` are what ran (or would run).
 */
/** A server's `notifications/progress` for a running call: `progress` grows; `total` when the server knows it. */
export const ToolProgressSchema = z.object({
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});
export type ToolProgress = z.infer<typeof ToolProgressSchema>;

/** A call made as an MCP task (docs/user/mcp-servers.md#tasks): the task's id on its server, its status and status message. */
export const ToolTaskStateSchema = z.object({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
});
export type ToolTaskState = z.infer<typeof ToolTaskStateSchema>;

export const ToolCallRecordSchema = ToolCallSchema.extend({
  /** The call exactly as the model made it; sent back to the provider in later requests. */
  modelCall: ModelToolCallSchema,
  status: ToolCallStatusSchema,
  title: z.string().optional(),
  annotations: ToolAnnotationsSchema.optional(),
  decision: ToolCallDecisionInfoSchema.optional(),
  originalArgs: z.record(z.string(), z.unknown()).optional(),
  /** What the tool returned, when it ran. */
  result: McpToolResultSchema.optional(),
  /** Why the call failed or did not run, when there is no result to show. */
  error: z.string().optional(),
  startedAt: z.number().optional(),
  durationMs: z.number().nonnegative().optional(),
  /** The server's latest progress while the call runs (cleared when it ends). */
  progress: ToolProgressSchema.optional(),
  /** Set when the call runs as an MCP task: it may go on after the reply ended, and its result arrives when it ends. */
  task: ToolTaskStateSchema.optional(),
  /** The tool's MCP Apps view (`_meta.ui.resourceUri`), shown with its result (docs/user/mcp-apps.md). */
  viewUri: z.string().optional(),
  /**
   * For a call with a view: the identity key of the server it was made to. The view is bound to it; once the name
   * means another server its requests are refused (docs/user/mcp-apps.md#a-view-belongs-to-its-server).
   */
  viewIdentity: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/** One model turn: its text, then the tool calls it made (in the model's order). */
export const TurnSchema = z.object({
  message: z.string().optional(),
  toolCalls: z.array(ToolCallRecordSchema).optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

/** What the loop answers: the turns so far, and the calls that wait for a person when it stopped for them. */
export const ModelReplySchema = z.object({
  timestamp: z.number().int(),
  turns: z.array(TurnSchema),
  pendingToolCalls: z.array(ToolCallRequestSchema).optional(),
});
export type ModelReply = z.infer<typeof ModelReplySchema>;

/** Why a reply ended: the model's own reason, or the loop's (`max_rounds`, `waiting-approval`, `error`). */
export const ReplyEndSchema = z.union([FinishReasonSchema, z.enum(['max_rounds', WAITING_APPROVAL, 'error'])]);
export type ReplyEnd = z.infer<typeof ReplyEndSchema>;

// ── Messages ────────────────────────────────────────────────────────────────────────────────────

export const MessageBaseSchema = z.object({
  id: z.string(),
  chatId: ChatIdSchema,
  exchangeId: z.string(),
  /** Position in the chat, from 1; messages are listed in this order. */
  seq: z.number().int().positive(),
  createdAt: z.number().int(),
});

/**
 * A resource the person attached to a message (docs/user/mcp-servers.md#resources): read by the person's own request
 * (mcp.readResource) and sent to the model with the message as context; shown as a chip on the message.
 */
export const ResourceAttachmentSchema = z.strictObject({
  server: z.string().min(1).max(200),
  uri: z.string().min(1).max(8192),
  name: z.string().min(1).max(500),
  mimeType: z.string().max(200).optional(),
  /** The contents as text (a binary part is named, not included). */
  text: z.string().max(ATTACHMENT_TEXT_MAX_LENGTH),
  /** The server's contents were longer and were cut. */
  truncated: z.boolean().optional(),
});
export type ResourceAttachment = z.infer<typeof ResourceAttachmentSchema>;

export const UserChatMessageSchema = MessageBaseSchema.extend({
  role: z.literal('user'),
  text: z.string(),
  attachments: z.array(ResourceAttachmentSchema).optional(),
});
export const AssistantChatMessageSchema = MessageBaseSchema.extend({
  role: z.literal('assistant'),
  reply: ModelReplySchema,
  providerId: z.string(),
  model: z.string(),
  usage: UsageSchema.optional(),
  /** Set once the reply ended; absent while it streams. */
  end: ReplyEndSchema.optional(),
});
export const ApprovalChatMessageSchema = MessageBaseSchema.extend({
  role: z.literal('approval'),
  toolCallApprovals: z.array(ToolCallApprovalSchema),
});
export const SystemChatMessageSchema = MessageBaseSchema.extend({
  role: z.literal('system'),
  kind: z.enum(['max-rounds', 'stopped', 'approvals-timed-out', 'info']),
  text: z.string(),
});
export const ErrorChatMessageSchema = MessageBaseSchema.extend({
  role: z.literal('error'),
  error: WorkbenchErrorDataSchema,
});

export const ChatMessageSchema = z.discriminatedUnion('role', [
  UserChatMessageSchema,
  AssistantChatMessageSchema,
  ApprovalChatMessageSchema,
  SystemChatMessageSchema,
  ErrorChatMessageSchema,
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type UserChatMessage = z.infer<typeof UserChatMessageSchema>;
export type AssistantChatMessage = z.infer<typeof AssistantChatMessageSchema>;
export type ApprovalChatMessage = z.infer<typeof ApprovalChatMessageSchema>;
export type SystemChatMessage = z.infer<typeof SystemChatMessageSchema>;
export type ErrorChatMessage = z.infer<typeof ErrorChatMessageSchema>;

/**
 * What a chat is doing now. `generating`: the model streams; `running-tools`: allowed calls run;
 * `waiting-approval`: calls wait for a person (the input is disabled); `idle`: nothing.
 */
export const ChatActivitySchema = z.object({
  status: z.enum(['idle', 'generating', 'running-tools', WAITING_APPROVAL]),
  exchangeId: z.string().nullable(),
});
export type ChatActivity = z.infer<typeof ChatActivitySchema>;

// ── Contract inputs, outputs and the stream event ───────────────────────────────────────────────

export const MESSAGE_TEXT_MAX_LENGTH = 200_000;

/** Seed 000's two messages a front end sends: a user's words, or the answers to every pending call. */
export const OutgoingMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({
    role: z.literal('user'),
    text: z.string().trim().min(1, 'must not be empty').max(MESSAGE_TEXT_MAX_LENGTH),
    attachments: z.array(ResourceAttachmentSchema).max(MAX_ATTACHMENTS).optional(),
  }),
  z.strictObject({ role: z.literal('approval'), toolCallApprovals: z.array(ToolCallApprovalSchema).min(1) }),
]);
export type OutgoingMessage = z.infer<typeof OutgoingMessageSchema>;

export const ChatSendInputSchema = z.strictObject({ chatId: ChatIdSchema, message: OutgoingMessageSchema });
export type ChatSendInput = z.infer<typeof ChatSendInputSchema>;
/** The message was stored and the exchange goes on in the background; its progress arrives as `chat.onDidStream`. */
export const ChatSendOutputSchema = z.object({
  exchangeId: z.string(),
  message: z.union([UserChatMessageSchema, ApprovalChatMessageSchema]),
  /** For an approval message: how each call was resolved. */
  resolutions: z.array(ApprovalResolutionSchema).optional(),
});
export type ChatSendOutput = z.infer<typeof ChatSendOutputSchema>;

export const ChatMessagesInputSchema = z.strictObject({
  chatId: ChatIdSchema,
  /** Only messages before this `seq` (paging back through a long chat). */
  beforeSeq: z.number().int().positive().optional(),
  /** The newest this many; all when absent. */
  limit: z.number().int().positive().max(10_000).optional(),
});
export const ChatMessagesOutputSchema = z.object({
  messages: z.array(ChatMessageSchema),
  /** Older messages exist before the first one returned. */
  hasMore: z.boolean(),
  activity: ChatActivitySchema,
});
export type ChatMessagesOutput = z.infer<typeof ChatMessagesOutputSchema>;

export const ChatStopInputSchema = z.strictObject({ chatId: ChatIdSchema });
/** `stopped` is false when nothing was running or waiting. */
export const ChatStopOutputSchema = z.object({ stopped: z.boolean() });

/** The person's Cancel of a tool call running as an MCP task (docs/user/mcp-servers.md#tasks). */
export const ChatCancelTaskInputSchema = z.strictObject({
  chatId: ChatIdSchema,
  toolCallId: z.string().min(1).max(200),
});
/** `cancelled` is false when the task had just ended: its end is what the block shows. */
export const ChatCancelTaskOutputSchema = z.object({ cancelled: z.boolean() });

/**
 * How an exchange progresses, pushed as it happens; every event names its chat and exchange.
 * - `text`: deltas of the reply's current turn, batched (about every 30 ms);
 * - `tool-call`: a call of a turn started, finished, was denied or now waits;
 * - `message`: a message was added, or replaced whole (an assistant reply at the end of each turn);
 * - `activity`: what the chat is doing now (`waiting-approval` is "approval needed", `idle` is "reply done");
 * - `error`: the exchange failed; the same error is stored as an `error` message.
 */
export const ChatStreamEventSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    chatId: ChatIdSchema,
    exchangeId: z.string(),
    messageId: z.string(),
    turn: z.number().int().nonnegative(),
    delta: z.string(),
  }),
  z.object({
    kind: z.literal('tool-call'),
    chatId: ChatIdSchema,
    exchangeId: z.string(),
    messageId: z.string(),
    turn: z.number().int().nonnegative(),
    call: ToolCallRecordSchema,
  }),
  z.object({ kind: z.literal('message'), chatId: ChatIdSchema, exchangeId: z.string(), message: ChatMessageSchema }),
  z.object({ kind: z.literal('activity'), chatId: ChatIdSchema, activity: ChatActivitySchema }),
  z.object({ kind: z.literal('error'), chatId: ChatIdSchema, exchangeId: z.string(), error: WorkbenchErrorDataSchema }),
]);
export type ChatStreamEvent = z.infer<typeof ChatStreamEventSchema>;
