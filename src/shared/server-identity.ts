import { z } from './zod';

/**
 * What an MCP server is, as opposed to what it is called (docs/user/approvals.md, "A server's identity"): for a
 * stdio server the command and arguments it runs (with the working folder when one is set), and the package it
 * runs when the command is a package runner (npx, uvx, pnpm dlx…) or the server ships with the app; for an HTTP
 * server the URL's origin and path (the OAuth resource). Everything that grants or limits a server is bound to
 * `key`; the name is a label. Computed by src/main/mcp/server-identity.ts.
 */
export const ServerIdentitySchema = z.object({
  /** Stable text that two servers share exactly when they run the same thing. */
  key: z.string(),
  kind: z.enum(['stdio', 'http']),
  /** What a person reads: the command line, or the URL. */
  description: z.string(),
  /** stdio: the command as configured (for a bundled server: the package name). */
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  /** The package the command runs (npx, uvx, pnpm dlx…, or a bundled server). */
  package: z.string().optional(),
  /** The package's version when the command pins one, or the bundled package's version. */
  version: z.string().optional(),
  /** HTTP: the URL's origin (`https://host:port`). */
  origin: z.string().optional(),
  /** HTTP: origin and path, the OAuth protected resource. */
  resource: z.string().optional(),
});
export type ServerIdentity = z.infer<typeof ServerIdentitySchema>;

/**
 * The identity a server's settings were made for, and the one it has now, when they differ (a changed launch spec);
 * or, with `unrecorded`, a server found in settings.json with no record of what it ran (written there outside the
 * app, by hand, by another program or by an older version): `previous` is UNRECORDED_IDENTITY, and the person is
 * asked once to accept what it runs (docs/user/approvals.md, "A server added outside the app").
 */
export const IdentityChangeSchema = z.object({
  previous: z.string(),
  current: z.string(),
  unrecorded: z.literal(true).optional(),
});
export type IdentityChange = z.infer<typeof IdentityChangeSchema>;

/** What an unrecorded server's settings were made for, in words: nothing the app knows of. */
export const UNRECORDED_IDENTITY = 'not recorded: it was added to settings.json outside AI Workbench';

/**
 * What the approval engine knows of one configured server besides its name (docs/dev/architecture.md, "Server
 * identity"): what it runs now, what its settings were made for when that is something else, and the names it had.
 */
export interface ServerFacts {
  readonly identity: ServerIdentity;
  /** Set when the server's launch spec changed since its settings, grants and rules were made: none of them allows. */
  readonly identityChanged?: IdentityChange | undefined;
  /** When the identity its settings were made for was recorded (added, imported or accepted), as ISO time. */
  readonly identitySince?: string | undefined;
  /** Names the server had before a rename (an organisation's rule by name follows it). */
  readonly formerNames: readonly string[];
}

/** Every configured server's facts, by name. */
export type ServerFactsByName = ReadonlyMap<string, ServerFacts>;

export const NO_SERVER_FACTS: ServerFactsByName = new Map();
