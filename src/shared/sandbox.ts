import { z } from './zod';
import { McpServerNameSchema } from './mcp';

/** One grant of a server's sandbox profile (docs/user/sandbox.md#widening). */
export const SandboxGrantSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.enum(['read', 'write']), path: z.string().min(1).max(4096) }),
  z.strictObject({ kind: z.literal('connect'), host: z.string().min(1).max(300) }),
  z.strictObject({ kind: z.literal('env'), name: z.string().min(1).max(200) }),
]);
export type SandboxGrant = z.infer<typeof SandboxGrantSchema>;

const ProfileSchema = z.object({
  read: z.array(z.string()),
  write: z.array(z.string()),
  hosts: z.array(z.string()),
  env: z.array(z.string()),
});

/** A server's sandbox as the Settings page and `workbench servers sandbox` show it. */
export const SandboxViewSchema = z.object({
  name: z.string(),
  /** `remote`: an HTTP server runs elsewhere; no profile applies. */
  kind: z.enum(['contained', 'not-contained', 'remote']),
  /** Why it is not contained (no sandbox on this machine…), in words. */
  reason: z.string().optional(),
  /** What it may touch at its next start (shipped profile, its own grants, under the organisation's caps). */
  profile: ProfileSchema.optional(),
  /** What was granted beyond the shipped profile: each can be taken back. */
  granted: ProfileSchema.optional(),
  allowUnconfined: z.boolean(),
  /** The organisation's limits. */
  limits: z.object({
    requireContainment: z.boolean(),
    allowUnconfined: z.boolean(),
    allowNetwork: z.boolean(),
    allowHomeFolder: z.boolean(),
    lockProfiles: z.boolean(),
  }),
});
export type SandboxView = z.infer<typeof SandboxViewSchema>;

export const SandboxChangeInputSchema = z.strictObject({ name: McpServerNameSchema, grant: SandboxGrantSchema });
