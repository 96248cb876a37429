import { z } from 'zod';

export const APP_NAME = 'AI Workbench';

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
