import { z } from './zod';
import { CHAT_TITLE_MAX_LENGTH } from './limits';

export const ChatIdSchema = z.uuid();
export type ChatId = z.infer<typeof ChatIdSchema>;

/** A title as a person would type it: trimmed, not empty, one line. */
export const ChatTitleSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(CHAT_TITLE_MAX_LENGTH, `must be at most ${CHAT_TITLE_MAX_LENGTH} characters`)
  .regex(/^[^\p{Cc}]*$/u, 'must be a single line without control characters')
  // SQLite stores UTF-8: an unpaired surrogate would come back as U+FFFD, unlike the title we answered with.
  .regex(/^[^\p{Cs}]*$/u, 'must be valid Unicode text (no unpaired surrogates)');

export const ChatSchema = z.object({
  id: ChatIdSchema,
  title: z.string(),
  /** Milliseconds since the epoch. */
  createdAt: z.number().int().nonnegative(),
  /** Milliseconds since the epoch; chats are listed most recently updated first. */
  updatedAt: z.number().int().nonnegative(),
  /** The provider (its id in `providers`) and model this chat talks to; null until one is picked. */
  providerId: z.string().nullable(),
  model: z.string().nullable(),
  /** Sent to the model before the conversation; null for none. */
  systemPrompt: z.string().nullable(),
});
export type Chat = z.infer<typeof ChatSchema>;

export const SYSTEM_PROMPT_MAX_LENGTH = 100_000;
const ProviderRefSchema = z.string().min(1).max(64);
const ModelRefSchema = z.string().trim().min(1).max(200);
const SystemPromptSchema = z.string().max(SYSTEM_PROMPT_MAX_LENGTH);

/** A new chat; provider and model default to the first configured provider and its default model. */
export const ChatCreateInputSchema = z
  .strictObject({
    title: ChatTitleSchema.optional(),
    providerId: ProviderRefSchema.optional(),
    model: ModelRefSchema.optional(),
    systemPrompt: SystemPromptSchema.optional(),
  })
  .optional();
export type ChatCreateInput = z.infer<typeof ChatCreateInputSchema>;
/** Fields left out stay; `null` clears (an empty system prompt). */
export const ChatConfigureInputSchema = z.strictObject({
  id: ChatIdSchema,
  providerId: ProviderRefSchema.optional(),
  model: ModelRefSchema.optional(),
  systemPrompt: SystemPromptSchema.nullable().optional(),
});
export type ChatConfigureInput = z.infer<typeof ChatConfigureInputSchema>;
export const ChatListOutputSchema = z.object({ chats: z.array(ChatSchema) });
export const ChatRefInputSchema = z.strictObject({ id: ChatIdSchema });
export const ChatRenameInputSchema = z.strictObject({ id: ChatIdSchema, title: ChatTitleSchema });
export const ChatDeleteOutputSchema = z.object({ id: ChatIdSchema });

export const ChatChangeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('created'), chat: ChatSchema }),
  z.object({ kind: z.literal('updated'), chat: ChatSchema }),
  z.object({ kind: z.literal('deleted'), id: ChatIdSchema }),
]);
export type ChatChange = z.infer<typeof ChatChangeSchema>;
