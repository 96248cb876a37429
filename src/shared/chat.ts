import { z } from 'zod';

export const ChatIdSchema = z.uuid();
export type ChatId = z.infer<typeof ChatIdSchema>;

export const CHAT_TITLE_MAX_LENGTH = 200;

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
});
export type Chat = z.infer<typeof ChatSchema>;

export const ChatCreateInputSchema = z.strictObject({ title: ChatTitleSchema.optional() }).optional();
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
