import { z } from './zod';
import { MCP_LOG_LEVELS, OAUTH_SIGNING_ALGORITHMS } from './closed-sets';
import { guardedRecord, settingName } from './setting-names';
import { IdentityChangeSchema, ServerIdentitySchema } from './server-identity';
import { ToolDefinitionSchema } from './tool';

/**
 * MCP servers as the contract shows them. Values of `env` and `headers` are secrets: they go in,
 * they never come out (a view lists their names only).
 */

export const MCP_SERVER_NAME_MAX_LENGTH = 64;

/** A server's key in `mcpServers`: what the user calls it in the settings file; one line, not empty. */
export const McpServerNameSchema = settingName(
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MCP_SERVER_NAME_MAX_LENGTH, `must be at most ${MCP_SERVER_NAME_MAX_LENGTH} characters`)
    .regex(/^[^\p{Cc}\p{Cs}]*$/u, 'must be a single line of text'),
);

/** The npm packages of MCP servers that ship with the app and run on its own Node runtime. */
export const BundledServerPackageSchema = z.enum([
  '@modelcontextprotocol/server-filesystem',
  '@modelcontextprotocol/server-memory',
  '@modelcontextprotocol/server-everything',
]);
export type BundledServerPackage = z.infer<typeof BundledServerPackageSchema>;

export const MCP_DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const MCP_DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
const TimeoutSchema = z
  .number()
  .int()
  .min(100)
  .max(24 * 60 * 60 * 1000);

/** Environment variable and header names; their values are secrets. */
const SecretNameSchema = settingName(
  z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^\p{Cc}=]+$/u, 'must be a name without "=" or control characters'),
);
const SecretMapSchema = guardedRecord(SecretNameSchema, z.string());
/** In an edit: a value sets the secret, null removes it, a name left out stays as it is. */
const SecretChangesSchema = guardedRecord(SecretNameSchema, z.string().nullable());

const HttpUrlSchema = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
    'must be an http:// or https:// URL',
  );

/** A client id the person got from the server's owner, for an OAuth server without dynamic client registration. Not a secret. */
const OAuthClientIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^[^\p{Cc}]*$/u, 'must be a single line of text');
/** A pre-registered OAuth client's secret (docs/user/mcp-oauth.md#pre-registered-clients): kept with the other secrets. */
const OAuthClientSecretSchema = z
  .string()
  .min(1)
  .max(2000)
  .regex(/^[^\p{Cc}]*$/u, 'must be a single line of text');
/** A pre-registered client's private key for `private_key_jwt` (RFC 7523): a PKCS#8 PEM and its JWS algorithm. */
export const OAuthPrivateKeySchema = z.strictObject({
  pem: z
    .string()
    .min(1)
    .max(20_000)
    .regex(/-----BEGIN PRIVATE KEY-----/, 'must be a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)'),
  algorithm: z.enum(OAUTH_SIGNING_ALGORITHMS),
});
export type OAuthPrivateKey = z.infer<typeof OAuthPrivateKeySchema>;

/**
 * Cross-app access (enterprise-managed authorization, docs/user/mcp-oauth.md#cross-app-access): the organisation's
 * identity provider and the client AI Workbench is registered as there. Not secrets; the ID token and that client's
 * secret are (`idpIdToken`, `idpClientSecret`).
 */
export const CrossAppAccessSchema = z.strictObject({
  idpIssuer: HttpUrlSchema,
  idpClientId: OAuthClientIdSchema,
  /** Its token endpoint, when its metadata cannot be discovered from the issuer (RFC 8414 or OpenID discovery). */
  idpTokenEndpoint: HttpUrlSchema.optional(),
});
export type CrossAppAccess = z.infer<typeof CrossAppAccessSchema>;
/** An OpenID Connect ID token from the identity provider (a JWT): a secret. */
const IdTokenSchema = z
  .string()
  .trim()
  .min(1)
  .max(20_000)
  .regex(/^[\w-]+\.[\w-]+\.[\w-]*$/, 'must be a JWT (three base64url parts joined by dots)');

/** `auto` tries Streamable HTTP and falls back to the older SSE transport when the server does not speak it. */
export const McpHttpTransportSchema = z.enum(['auto', 'http', 'sse']);
export type McpHttpTransport = z.infer<typeof McpHttpTransportSchema>;

/** MCP's log levels (RFC 5424 severities), least to most severe. */
export const McpLogLevelSchema = z.enum(MCP_LOG_LEVELS);
export type McpLogLevel = z.infer<typeof McpLogLevelSchema>;
/** What a server is asked to send (`logging/setLevel`) unless its settings say otherwise. */
export const MCP_DEFAULT_LOG_LEVEL: McpLogLevel = 'info';

/** Folders a server is told about (MCP roots): absolute paths; at most 32. */
const RootsSchema = z
  .array(
    z
      .string()
      .trim()
      .min(1)
      .max(4096)
      .refine((value) => value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value), 'must be an absolute path'),
  )
  .max(32);

const ServerOptionsShape = {
  displayName: z.string().trim().max(200).optional(),
  enabled: z.boolean().optional(),
  /** The user trusts this server's tool annotations (readOnlyHint…); the approval engine reads it. */
  trusted: z.boolean().optional(),
  callTimeoutMs: TimeoutSchema.optional(),
  /** The least severe log message the server should send (docs/user/mcp-servers.md#logging). */
  logLevel: McpLogLevelSchema.optional(),
  /** The folders the server is told it may work in (MCP roots; docs/user/mcp-servers.md#roots). */
  roots: RootsSchema.optional(),
};

/** A new server, in the Claude Desktop / Cursor shape plus our options. Exactly one of command, package or url. */
const StdioShape = {
  args: z.array(z.string()).optional(),
  env: SecretMapSchema.optional(),
  cwd: z.string().min(1).optional(),
  ...ServerOptionsShape,
};

export const McpServerInputSchema = z.union([
  z.strictObject({ command: z.string().trim().min(1), ...StdioShape }),
  z.strictObject({ package: BundledServerPackageSchema, ...StdioShape }),
  z.strictObject({
    url: HttpUrlSchema,
    headers: SecretMapSchema.optional(),
    type: McpHttpTransportSchema.optional(),
    oauthClientId: OAuthClientIdSchema.optional(),
    oauthClientSecret: OAuthClientSecretSchema.optional(),
    oauthPrivateKey: OAuthPrivateKeySchema.optional(),
    crossAppAccess: CrossAppAccessSchema.optional(),
    idpClientSecret: OAuthClientSecretSchema.optional(),
    idpIdToken: IdTokenSchema.optional(),
    ...ServerOptionsShape,
  }),
]);
export type McpServerInput = z.infer<typeof McpServerInputSchema>;

export const McpAddInputSchema = z.strictObject({ name: McpServerNameSchema, server: McpServerInputSchema });

/** Changes to one server; what is left out stays. A stdio server cannot become an HTTP one (remove and add instead). */
export const McpEditInputSchema = z.strictObject({
  name: McpServerNameSchema,
  rename: McpServerNameSchema.optional(),
  displayName: z.string().trim().max(200).nullable().optional(),
  enabled: z.boolean().optional(),
  trusted: z.boolean().optional(),
  callTimeoutMs: TimeoutSchema.nullable().optional(),
  logLevel: McpLogLevelSchema.nullable().optional(),
  /** null: back to the default (the Files server: its sandbox; others: none). */
  roots: RootsSchema.nullable().optional(),
  command: z.string().trim().min(1).optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).nullable().optional(),
  env: SecretChangesSchema.optional(),
  url: HttpUrlSchema.optional(),
  headers: SecretChangesSchema.optional(),
  type: McpHttpTransportSchema.optional(),
  oauthClientId: OAuthClientIdSchema.nullable().optional(),
  /** A value sets the secret, null removes it. */
  oauthClientSecret: OAuthClientSecretSchema.nullable().optional(),
  oauthPrivateKey: OAuthPrivateKeySchema.nullable().optional(),
  /** null: the server signs in the usual way again. Its ID token and IdP client secret: a value sets, null removes. */
  crossAppAccess: CrossAppAccessSchema.nullable().optional(),
  idpClientSecret: OAuthClientSecretSchema.nullable().optional(),
  idpIdToken: IdTokenSchema.nullable().optional(),
  /**
   * The person accepts what the server runs now as the server its settings, grants and rules were made for (after its
   * launch spec changed: docs/user/approvals.md, "A server's identity").
   */
  acceptIdentity: z.literal(true).optional(),
  /**
   * With `acceptIdentity`: what the person was shown it runs (its `identityChanged.current`). The accept is refused
   * (`conflict`) when it runs something else by then: a person accepts only what they saw.
   */
  acceptedIdentity: z.string().max(4096).optional(),
});
export type McpEditInput = z.infer<typeof McpEditInputSchema>;

export const McpServerRefInputSchema = z.strictObject({ name: McpServerNameSchema });
export const McpSetEnabledInputSchema = z.strictObject({ name: McpServerNameSchema, enabled: z.boolean() });
export const McpRemoveOutputSchema = z.object({ name: z.string() });

/**
 * The organisation's identity provider (cross-app access) a server would sign in through
 * (docs/user/organisation-policy.md#oauth), as the person may see it: never its client's secret, only whether the
 * organisation gives one. `locked`: the person cannot set another.
 */
export const OrganisationIdpViewSchema = z.object({
  idpIssuer: z.string(),
  idpClientId: z.string(),
  idpTokenEndpoint: z.string().optional(),
  locked: z.boolean(),
  clientSecret: z.boolean(),
});
export type OrganisationIdpView = z.infer<typeof OrganisationIdpViewSchema>;
/** An HTTP server about to be added: its name (may still be empty) and its URL as typed. */
export const McpOrganisationIdpInputSchema = z.strictObject({
  name: z.string().max(MCP_SERVER_NAME_MAX_LENGTH),
  url: z.string().max(4096),
});
export const McpOrganisationIdpOutputSchema = z.object({ identityProvider: OrganisationIdpViewSchema.nullable() });

/**
 * `needs-sign-in`: an OAuth server without a usable token; it waits for the person to sign in (never retried by itself).
 * `needs-acceptance`: what the server runs is not accepted (docs/user/approvals.md, "A server's identity"); it is not
 * started until the person accepts it.
 */
export const McpServerStateSchema = z.enum([
  'starting',
  'ready',
  'error',
  'stopped',
  'restarting',
  'needs-sign-in',
  'needs-acceptance',
]);
export type McpServerState = z.infer<typeof McpServerStateSchema>;

export const McpServerStatusSchema = z.object({
  state: McpServerStateSchema,
  /** Why the server is in `error` (or what it is waiting for while `restarting`), in words a person reads. */
  message: z.string().optional(),
  /** Milliseconds since the epoch when the state was entered. */
  since: z.number(),
  /** Crashes within the last minute; at five the server stays in `error` until the user restarts it. */
  recentCrashes: z.number().int().nonnegative(),
  pid: z.number().int().optional(),
  /** The transport that connected (an `auto` HTTP server may have fallen back to SSE). */
  transport: z.enum(['stdio', 'http', 'sse']).optional(),
  /** A running stdio server: in its sandbox, or Not contained (docs/user/sandbox.md). */
  containment: z.enum(['contained', 'not-contained']).optional(),
  serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  /** The MCP protocol revision the running server speaks with us, e.g. `2026-07-28` or `2025-11-25` (docs/user/mcp-servers.md). */
  protocolVersion: z.string().optional(),
  /** What the running server offers besides tools (from its initialize answer). */
  features: z
    .object({
      logging: z.boolean(),
      resources: z.boolean(),
      resourceSubscriptions: z.boolean(),
      prompts: z.boolean(),
      completions: z.boolean(),
    })
    .optional(),
  toolCount: z.number().int().nonnegative(),
});
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

/** One configured server as the UI sees it: its settings without secret values, and its status. */
export const McpServerViewSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  enabled: z.boolean(),
  trusted: z.boolean(),
  callTimeoutMs: z.number().int(),
  kind: z.enum(['stdio', 'http']),
  command: z.string().optional(),
  /** For a server that ships with the app: its npm package (run on the app's own Node runtime). */
  package: BundledServerPackageSchema.optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  type: McpHttpTransportSchema.optional(),
  /** The OAuth client id the person entered, when the server does not register clients itself. */
  oauthClientId: z.string().optional(),
  /** The identity provider it signs in through (cross-app access), when it does. */
  crossAppAccess: CrossAppAccessSchema.optional(),
  /**
   * Set when that identity provider is the organisation's (docs/user/organisation-policy.md#oauth): `locked` when the
   * person cannot change it, `clientSecret` when the organisation gives its client's secret there (never the value).
   */
  crossAppAccessByOrganisation: z.object({ locked: z.boolean(), clientSecret: z.boolean() }).optional(),
  /** Whether OAuth tokens are stored for this server (never the tokens: they stay in the main process). */
  signedIn: z.boolean().optional(),
  /** Names only: the values are secrets and stay in the main process. */
  envKeys: z.array(z.string()),
  headerKeys: z.array(z.string()),
  logLevel: McpLogLevelSchema,
  /** The folders the server is told about: its own setting, or the default (the Files server's sandbox). */
  roots: z.array(z.string()),
  status: McpServerStatusSchema,
  /** What the server runs (docs/user/approvals.md, "A server's identity"); the name is a label. */
  identity: ServerIdentitySchema.optional(),
  /** Its launch spec changed since its settings were made: what it ran then and runs now; its calls ask again. */
  identityChanged: IdentityChangeSchema.optional(),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

export const McpListOutputSchema = z.object({ servers: z.array(McpServerViewSchema) });

export const McpLogLineSchema = z.object({
  time: z.number(),
  /**
   * `stderr` is what the server wrote; `host` is what AI Workbench noticed (started, exited, bad output…);
   * `server` is a log message the server sent over MCP (`notifications/message`), with its level.
   */
  source: z.enum(['stderr', 'host', 'server']),
  text: z.string(),
  level: McpLogLevelSchema.optional(),
  logger: z.string().optional(),
});
export type McpLogLine = z.infer<typeof McpLogLineSchema>;
export const McpLogsInputSchema = z.strictObject({
  name: McpServerNameSchema,
  limit: z.number().int().min(1).max(1000).optional(),
});
export const McpLogsOutputSchema = z.object({
  name: z.string(),
  lines: z.array(McpLogLineSchema),
  /** Lines that fell out of the ring buffer since the server was added. */
  dropped: z.number().int().nonnegative(),
});

/** A tool in the registry: its definition (hash, first-seen `previous`) plus what the host knows about it. */
export const McpToolSchema = ToolDefinitionSchema.extend({
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique across servers: the name a model sees; maps back to server + tool exactly. */
  providerName: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  /** False unless the user marked the server trusted: annotations are only hints from the server. */
  annotationsTrusted: z.boolean(),
  /** The server is ready and the tool has no problem: it can be offered to a model and called. */
  available: z.boolean(),
  /**
   * The server is still starting and this is the definition it listed at its last launch: a model may be offered it,
   * and a call of it waits for the live definition and runs only if that is the same
   * (docs/user/mcp-servers.md#tool-lists-from-the-last-launch).
   */
  cached: z.literal(true).optional(),
  /**
   * The tool's MCP `execution.taskSupport`: `required` runs each call as a task (docs/user/mcp-servers.md#tasks);
   * `optional` tools are called directly.
   */
  taskSupport: z.enum(['optional', 'required']).optional(),
  /** Why the tool cannot be used as declared (an input schema that is not valid JSON Schema…). */
  problem: z.string().optional(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

export const McpToolsInputSchema = z.strictObject({ name: McpServerNameSchema.optional() }).optional();
export const McpToolsOutputSchema = z.object({ tools: z.array(McpToolSchema) });

export const McpServerChangeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('updated'), server: McpServerViewSchema }),
  z.object({ kind: z.literal('removed'), name: z.string() }),
  /** Something the person should know about a server (a different server took a freed name and starts with nothing). */
  z.object({ kind: z.literal('notice'), name: z.string(), message: z.string() }),
]);
export type McpServerChange = z.infer<typeof McpServerChangeSchema>;

export const McpToolsChangeSchema = z.object({
  serverName: z.string(),
  toolCount: z.number().int().nonnegative(),
  /** Tools whose definition differs from the one first seen (their `previous` holds it). */
  changed: z.array(z.string()),
});
export type McpToolsChange = z.infer<typeof McpToolsChangeSchema>;

/** Where to import servers from: another app's config file found where that app keeps it, or a file's text. */
export const McpImportSourceSchema = z.union([
  z.strictObject({ app: z.enum(['claude-desktop', 'cursor', 'vscode']) }),
  z.strictObject({ fileName: z.string().min(1).max(500), text: z.string().max(5_000_000) }),
]);
export type McpImportSource = z.infer<typeof McpImportSourceSchema>;

export const McpImportFormatSchema = z.enum(['claude-desktop', 'cursor', 'vscode']);

export const McpImportPreviewSchema = z.object({
  /** The file read, as a person would recognise it. */
  file: z.string(),
  format: McpImportFormatSchema,
  add: z.array(
    z.object({
      /** The name it will have here. */
      name: z.string(),
      /** Its name in the file; differs from `name` when that name is taken. */
      originalName: z.string(),
      renamed: z.boolean(),
      kind: z.enum(['stdio', 'http']),
      /** `command args…` or the URL. */
      summary: z.string(),
      enabled: z.boolean(),
      envKeys: z.array(z.string()),
      headerKeys: z.array(z.string()),
    }),
  ),
  skip: z.array(z.object({ name: z.string(), reason: z.string() })),
});
export type McpImportPreview = z.infer<typeof McpImportPreviewSchema>;

export const McpImportInputSchema = z.strictObject({
  source: McpImportSourceSchema,
  /** Names as they are in the file; all importable servers when left out. */
  only: z.array(z.string()).optional(),
});
export const McpImportPreviewInputSchema = z.strictObject({ source: McpImportSourceSchema });
export const McpImportOutputSchema = z.object({
  added: z.array(z.string()),
  skip: McpImportPreviewSchema.shape.skip,
});

/** A sign-in started (docs/user/mcp-oauth.md): the page to sign in on, and whether a browser already shows it. */
export const McpSignInOutputSchema = z.object({
  name: z.string(),
  /** The authorization server's page; a front end shows it when no browser could be opened. */
  authorizationUrl: z.string(),
  openedBrowser: z.boolean(),
});
export type McpSignInOutput = z.infer<typeof McpSignInOutputSchema>;
export const McpAwaitSignInOutputSchema = z.object({ name: z.string(), signedIn: z.literal(true) });
/** A resource the app subscribed to changed on its server (`notifications/resources/updated`). */
export const McpResourceUpdatedSchema = z.object({ serverName: z.string(), uri: z.string() });
export type McpResourceUpdated = z.infer<typeof McpResourceUpdatedSchema>;

// ── Resources (docs/user/mcp-servers.md#resources) ──────────────────────────────────────────────────

export const McpResourceSchema = z.object({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
});
export type McpResource = z.infer<typeof McpResourceSchema>;
export const McpResourceTemplateSchema = z.object({
  uriTemplate: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});
export type McpResourceTemplate = z.infer<typeof McpResourceTemplateSchema>;

// ── Prompts (docs/user/mcp-servers.md#prompts): asked for by the person, never by the model ──────

export const McpPromptArgumentSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});
export const McpPromptSchema = z.object({
  /** The server that offers it. */
  server: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(McpPromptArgumentSchema),
});
export type McpPrompt = z.infer<typeof McpPromptSchema>;
/** One server's prompts, or every ready server's when no name is given (a server that fails is left out). */
export const McpPromptsInputSchema = z.strictObject({ name: McpServerNameSchema.optional() });
export const McpPromptsOutputSchema = z.object({ prompts: z.array(McpPromptSchema) });
export type McpPromptsOutput = z.infer<typeof McpPromptsOutputSchema>;
export const McpGetPromptInputSchema = z.strictObject({
  name: McpServerNameSchema,
  prompt: z.string().min(1).max(500),
  arguments: z.record(z.string(), z.string().max(100_000)).default({}),
});
export const McpPromptMessageSchema = z.object({ role: z.enum(['user', 'assistant']), text: z.string() });
/** The prompt's messages as text (a resource's text inlined with its URI, other content named), cut at 1 MB in all. */
export const McpGetPromptOutputSchema = z.object({
  server: z.string(),
  prompt: z.string(),
  description: z.string().optional(),
  messages: z.array(McpPromptMessageSchema),
});
export type McpGetPromptOutput = z.infer<typeof McpGetPromptOutputSchema>;
/** Suggestions for one argument of a prompt as it is typed (`completion/complete`); none when the server offers none. */
export const McpCompleteInputSchema = z.strictObject({
  name: McpServerNameSchema,
  prompt: z.string().min(1).max(500),
  argument: z.string().min(1).max(500),
  value: z.string().max(10_000),
  /** The arguments filled in so far. */
  context: z.record(z.string(), z.string().max(10_000)).optional(),
});
export const McpCompleteOutputSchema = z.object({ values: z.array(z.string()), hasMore: z.boolean() });
export type McpCompleteOutput = z.infer<typeof McpCompleteOutputSchema>;

export const McpResourcesInputSchema = z.strictObject({ name: McpServerNameSchema });
/** Follow (or stop following) changes of a resource attached to the next message; `subscribed` false when the server offers no subscriptions. */
export const McpResourceSubscriptionInputSchema = z.strictObject({
  name: McpServerNameSchema,
  uri: z.string().min(1).max(8192),
});
export const McpResourceSubscriptionOutputSchema = z.object({ subscribed: z.boolean() });
export const McpResourcesOutputSchema = z.object({
  name: z.string(),
  resources: z.array(McpResourceSchema),
  templates: z.array(McpResourceTemplateSchema),
});
export type McpResourcesOutput = z.infer<typeof McpResourcesOutputSchema>;

/** Reading a resource is a request the person makes; a model has no way to make it (docs/user/mcp-servers.md#resources). */
export const McpReadResourceInputSchema = z.strictObject({
  name: McpServerNameSchema,
  uri: z.string().min(1).max(8192),
});
export const McpResourceContentSchema = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  /** Text contents (cut at 1 MB, `truncated` then says so). */
  text: z.string().optional(),
  /** Binary contents, base64 (cut at 1 MB). */
  blob: z.string().optional(),
  truncated: z.boolean().optional(),
});
export type McpResourceContent = z.infer<typeof McpResourceContentSchema>;
export const McpReadResourceOutputSchema = z.object({
  name: z.string(),
  uri: z.string(),
  contents: z.array(McpResourceContentSchema),
});
export type McpReadResourceOutput = z.infer<typeof McpReadResourceOutputSchema>;
