import { z } from './zod';
import { ChatIdSchema } from './chat';

/**
 * Main asks the page to open a chat and, when given, bring one tool call's card into view (a click
 * on an approval notification or on "N approvals waiting" in the tray). Only the desktop app sends it.
 */
export const AppChatRequestSchema = z.object({
  chatId: ChatIdSchema,
  toolCallId: z.string().min(1).optional(),
});
export type AppChatRequest = z.infer<typeof AppChatRequestSchema>;

export const HostKindSchema = z.enum(['electron', 'browser', 'cli']);
export type HostKind = z.infer<typeof HostKindSchema>;

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  host: HostKindSchema,
  platform: z.string(),
  /** The folder that holds the database and settings (WORKBENCH_HOME or the OS app-data folder). */
  dataDir: z.string(),
  versions: z.object({
    node: z.string(),
    electron: z.string().optional(),
    chrome: z.string().optional(),
    sqlite: z.string(),
  }),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/**
 * settings.json read again while the app runs (docs/user/data.md, "Editing settings.json"): the sections that took
 * the file's new values, or, for a file that cannot be used, why, while the last good settings stay in force.
 */
export const SettingsReloadSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reloaded'), file: z.string(), sections: z.array(z.string()) }),
  z.object({ kind: z.literal('invalid'), file: z.string(), message: z.string() }),
]);
export type SettingsReload = z.infer<typeof SettingsReloadSchema>;

/** What is wrong with settings.json now, if it could not be used: for a window opened after the change was seen. */
export const SettingsProblemSchema = z.object({
  problem: z.object({ file: z.string(), message: z.string() }).nullable(),
});
export type SettingsProblem = z.infer<typeof SettingsProblemSchema>;
