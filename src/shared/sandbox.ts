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
  /**
   * The person's allowance to run it unconfined (docs/user/sandbox.md#unconfined), null when none: what it ran when
   * given, since when, and whether it applies now (not after a rename or a change of what it runs, nor where the
   * organisation requires containment; `note` says why).
   */
  unconfined: z
    .object({
      description: z.string(),
      since: z.string().optional(),
      applies: z.boolean(),
      note: z.string().optional(),
    })
    .nullable(),
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

/** Let one server run unconfined, or contain it again (docs/user/sandbox.md#unconfined). */
export const SandboxUnconfinedInputSchema = z.strictObject({ name: McpServerNameSchema, unconfined: z.boolean() });

/**
 * The grant that would let a blocked access through, and nothing more (docs/user/sandbox.md#widening): reading the
 * path; writing the folder the file was to be written in (a file that does not exist yet cannot be granted alone); the
 * `host:port`; the variable.
 */
export function grantForBlock(block: { kind: 'read' | 'write' | 'connect' | 'env'; target: string }): SandboxGrant {
  if (block.kind === 'connect') return { kind: 'connect', host: block.target };
  if (block.kind === 'env') return { kind: 'env', name: block.target };
  if (block.kind === 'read') return { kind: 'read', path: block.target };
  const cut = block.target.lastIndexOf('/');
  return { kind: 'write', path: cut > 0 ? block.target.slice(0, cut) : '/' };
}

/**
 * A request to widen a server's profile by one grant, waiting in the one pending store (kind `sandbox-widening`) until
 * the person allows or denies it (docs/user/sandbox.md#widening).
 */
export const SandboxWideningSchema = z.object({
  id: z.string(),
  serverName: z.string(),
  grant: SandboxGrantSchema,
  /** What it grants, in words: "Files may read /home/me/notes (and everything in it)". */
  description: z.string(),
  /** The chat and tool call whose block it was made from, if any. */
  chatId: z.string().nullable(),
  toolCallId: z.string().optional(),
  createdAt: z.number(),
  status: z.enum(['pending', 'allow_once', 'deny']),
});
export type SandboxWidening = z.infer<typeof SandboxWideningSchema>;

export const SandboxWideningRequestInputSchema = z.strictObject({
  name: McpServerNameSchema,
  grant: SandboxGrantSchema,
  chatId: z.string().min(1).max(200).optional(),
  toolCallId: z.string().min(1).max(200).optional(),
});
export type SandboxWideningRequestInput = z.infer<typeof SandboxWideningRequestInputSchema>;

export const SandboxWideningDecideInputSchema = z.strictObject({
  id: z.string().min(1).max(200),
  decision: z.enum(['allow', 'deny']),
});

export const SandboxWideningsOutputSchema = z.object({ widenings: z.array(SandboxWideningSchema) });
