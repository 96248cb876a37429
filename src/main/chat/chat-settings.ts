import { z } from 'zod';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';

/** The `chat` settings section. */
export const ChatSettingsSchema = z.strictObject({
  /** Rounds of generation one exchange may take before it is stopped with a notice. */
  maxToolRounds: z.number().int().min(1).max(500).default(20),
});
export type ChatSettings = z.infer<typeof ChatSettingsSchema>;
export const CHAT_SECTION = 'chat';

/** The `chat` settings section (a bad one throws `SettingsError` naming the field). */
export function openChatSettings(settings: SettingsStore): SettingsSection<ChatSettings> {
  return settings.section(CHAT_SECTION, ChatSettingsSchema, ChatSettingsSchema.parse({}));
}
