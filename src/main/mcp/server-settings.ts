import path from 'node:path';
import { z } from 'zod';
import { guardedRecord, settingName, settingsRecord } from '../../shared/setting-names';
import { BundledServerPackageSchema, McpHttpTransportSchema, McpLogLevelSchema } from '../../shared/mcp';
import { SandboxSettingsSchema } from './sandbox/profile';

/**
 * The `mcpServers` section of settings.json, in the shape Claude Desktop and Cursor use:
 * `{ NAME: { command, args, env, cwd } }` for stdio and `{ NAME: { url, headers } }` for HTTP, plus
 * our options (`enabled`, `displayName`, `trusted`, `callTimeoutMs`) and `package` for servers that
 * ship with the app. `env` and `headers` hold SECRET_PLACEHOLDER: the values live in the secret store.
 * Unknown members are kept as they are, so a hand-edited file loses nothing when we write it.
 */

export const MCP_SETTINGS_SECTION = 'mcpServers';

/** What settings.json holds instead of an env or header value; the value itself is a secret. */
export const SECRET_PLACEHOLDER = '<stored in secrets>';

const OptionsShape = {
  displayName: z.string().optional(),
  enabled: z.boolean().optional(),
  trusted: z.boolean().optional(),
  callTimeoutMs: z.number().int().positive().optional(),
  logLevel: McpLogLevelSchema.optional(),
  roots: z.array(z.string()).optional(),
  /**
   * What the server ran when its settings, grants and rules were made (docs/user/approvals.md, "A server's
   * identity"): written when the server is added or imported and when the person accepts what it runs, kept by every
   * other edit, so a command changed by an edit or by hand in settings.json differs from it. Until the person accepts
   * what it runs now, none of them allows its calls.
   * `since` is when it was recorded (ISO time): suggestions rest only on calls made since (docs/user/insights.md).
   * `accepted: false`: the app found the entry without a record (docs/user/approvals.md, "A server added outside the
   * app") and recorded what it ran then; like an entry with no record at all, nothing given to it counts until the
   * person accepts what it runs.
   */
  identity: z
    .object({
      key: z.string(),
      description: z.string(),
      since: z.string().optional(),
      accepted: z.literal(false).optional(),
    })
    .optional(),
  /** The names it had before a rename: an organisation's rule by name follows it (docs/user/organisation-policy.md). */
  formerNames: z.array(z.string()).optional(),
};
const StringMapSchema = guardedRecord(settingName(z.string()), z.string());

export const StdioServerSettingsSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1).optional(),
  package: BundledServerPackageSchema.optional(),
  args: z.array(z.string()).optional(),
  env: StringMapSchema.optional(),
  cwd: z.string().optional(),
  /** What the server may touch in its sandbox (docs/user/sandbox.md#profiles). */
  sandbox: SandboxSettingsSchema.optional(),
  ...OptionsShape,
});
export const HttpServerSettingsSchema = z.looseObject({
  url: z.string().min(1),
  type: McpHttpTransportSchema.optional(),
  headers: StringMapSchema.optional(),
  /** An OAuth client id the person entered (docs/user/mcp-oauth.md); tokens are never here, they are secrets. */
  oauthClientId: z.string().optional(),
  /** Cross-app access through the organisation's identity provider (docs/user/mcp-oauth.md#cross-app-access). */
  crossAppAccess: z
    .object({ idpIssuer: z.string(), idpClientId: z.string(), idpTokenEndpoint: z.string().optional() })
    .optional(),
  ...OptionsShape,
});

export const ServerSettingsSchema = z
  .union([HttpServerSettingsSchema, StdioServerSettingsSchema])
  .refine((server) => 'url' in server || Boolean(server.command) !== Boolean(server.package), {
    message: 'needs exactly one of "command", "package" or "url"',
  });
export type ServerSettings = z.infer<typeof ServerSettingsSchema>;
export type StdioServerSettings = z.infer<typeof StdioServerSettingsSchema>;
export type HttpServerSettings = z.infer<typeof HttpServerSettingsSchema>;

export const McpServersSettingsSchema = settingsRecord(ServerSettingsSchema);
export type McpServersSettings = z.infer<typeof McpServersSettingsSchema>;

export function isHttpServer(server: ServerSettings): server is HttpServerSettings {
  return typeof (server as HttpServerSettings).url === 'string';
}

/**
 * The folders a server is told about (MCP roots, docs/user/mcp-servers.md#roots): its `roots` setting, or by
 * default the directories a filesystem server was given (the Files server: its sandbox), else none.
 */
export function effectiveRoots(server: ServerSettings): string[] {
  if (server.roots) return server.roots;
  if (isHttpServer(server) || server.package !== '@modelcontextprotocol/server-filesystem') return [];
  return (server.args ?? []).filter((arg) => path.isAbsolute(arg));
}

/**
 * Secret-store keys: `mcp.<server>.env.<NAME>` and `mcp.<server>.headers.<NAME>`. The server's
 * name is escaped so that a name with dots cannot be mistaken for another server's key.
 */
export type SecretKind = 'env' | 'headers';

export function secretPrefix(serverName: string, kind?: SecretKind): string {
  const escaped = serverName.replaceAll('%', '%25').replaceAll('.', '%2E');
  return kind ? `mcp.${escaped}.${kind}.` : `mcp.${escaped}.`;
}

export function secretKey(serverName: string, kind: SecretKind, name: string): string {
  return `${secretPrefix(serverName, kind)}${name}`;
}

/**
 * The secret-store key of a pre-registered OAuth client's secret or private key (JSON `{ secret?, privateKey? }`):
 * under the server's prefix like its other secrets, and apart from its tokens, which signing out forgets.
 */
export function oauthClientSecretKey(serverName: string): string {
  return `${secretPrefix(serverName)}oauthClient`;
}

/** The secret-store key of a server's OAuth state (tokens, client registration): under the server's prefix, so it is moved and removed with it. */
export function oauthSecretKey(serverName: string): string {
  return `${secretPrefix(serverName)}oauth`;
}
