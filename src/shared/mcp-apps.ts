import { z } from './zod';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool may ship an interactive view, a `ui://` resource of
 * type `text/html;profile=mcp-app` (docs/user/mcp-apps.md).
 */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
export const MCP_APP_URI_SCHEME = 'ui:';
/** The prefix of every audit row's call id for a request a view made (docs/user/mcp-apps.md); Insights count them by it. */
export const APP_CALL_PREFIX = 'app:';
/**
 * What a view asks that is not a tool call, by the name its audit rows carry as their tool: names no MCP tool can have
 * (a tool's name has no `/`). Insights counts a view's tool calls only (docs/user/insights.md#filters).
 */
export const APP_REQUESTS_NOT_CALLS = ['resources/read', 'ui/open-link'] as const;
/** The words of a refusal made in the view's frame (a link not opened, a request its Content-Security-Policy blocked). */
export const FRAME_REFUSAL_WORDS = "refused in the view's frame";

/**
 * "Allow for this chat" of a view's tool calls, kept as a chat grant like the model's (docs/user/mcp-apps.md#allow-for-this-chat):
 * the tool's name and definition hash each behind `app:`. A tool's hash is hex SHA-256, so an app's grant never
 * allows the model's call of a tool, nor a model's grant (of a tool the server itself named `app:…`) an app's call.
 */
export const appGrantOf = (toolName: string, definitionHash: string): { toolName: string; definitionHash: string } => ({
  toolName: `${APP_CALL_PREFIX}${toolName}`,
  definitionHash: `${APP_CALL_PREFIX}${definitionHash}`,
});
/** The tool and definition an app's grant is for, or undefined for a grant of the model's calls. */
export function appGrantFor(grant: {
  toolName: string;
  definitionHash: string;
}): { toolName: string; definitionHash: string } | undefined {
  if (!grant.toolName.startsWith(APP_CALL_PREFIX) || !grant.definitionHash.startsWith(APP_CALL_PREFIX))
    return undefined;
  return {
    toolName: grant.toolName.slice(APP_CALL_PREFIX.length),
    definitionHash: grant.definitionHash.slice(APP_CALL_PREFIX.length),
  };
}

/** Who may call a tool: the model, the server's own view, or both (the extension's default). */
export const McpAppVisibilitySchema = z.enum(['model', 'app']);
export type McpAppVisibility = z.infer<typeof McpAppVisibilitySchema>;

/**
 * A tool's `_meta.ui`: the view to render with its results (absent for a tool only views call) and who may call
 * the tool.
 */
export const McpToolUiSchema = z.object({
  resourceUri: z.string().optional(),
  visibility: z.array(McpAppVisibilitySchema),
});
export type McpToolUi = z.infer<typeof McpToolUiSchema>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A tool's view as its `_meta` declares it, or undefined when it declares none. `_meta.ui.resourceUri` (and the
 * older flat `_meta["ui/resourceUri"]`) must be a `ui://` URI; a visibility that is absent means both, entries we do
 * not know are ignored (an empty list: nobody may call it). A malformed `ui` gives a `problem` instead.
 */
export function toolUiOf(meta: unknown): { ui?: McpToolUi; problem?: string } {
  if (!isObject(meta)) return {};
  const nested = isObject(meta.ui) ? meta.ui : undefined;
  const uri = nested?.resourceUri ?? meta['ui/resourceUri'];
  const rawVisibility = nested?.visibility;
  if (uri === undefined && rawVisibility === undefined) return {};
  const visibility: McpAppVisibility[] = [];
  if (rawVisibility === undefined) visibility.push('model', 'app');
  else if (Array.isArray(rawVisibility)) {
    for (const item of rawVisibility) {
      const parsed = McpAppVisibilitySchema.safeParse(item);
      if (parsed.success && !visibility.includes(parsed.data)) visibility.push(parsed.data);
    }
  } else return { problem: '_meta.ui.visibility is not a list of "model" and "app".' };
  if (uri === undefined) return { ui: { visibility } };
  if (typeof uri !== 'string' || !isUiUri(uri))
    return { problem: `its view ${JSON.stringify(uri)} is not a ui:// URI.` };
  return { ui: { resourceUri: uri, visibility } };
}

/** A `ui://host/path` URI (the scheme MCP Apps reserves for views). */
export function isUiUri(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === MCP_APP_URI_SCHEME && uri.startsWith('ui://') && uri.length > 'ui://'.length;
  } catch {
    return false;
  }
}

/** A model may be offered, and may call, a tool whose visibility lists "model" (every tool without a view). */
export const visibleToModel = (tool: { ui?: McpToolUi | undefined }): boolean =>
  !tool.ui || tool.ui.visibility.includes('model');
/** A view may ask for a call of a tool of its own server whose visibility lists "app" (the default, as for the model). */
export const visibleToApp = (tool: { ui?: McpToolUi | undefined }): boolean =>
  !tool.ui || tool.ui.visibility.includes('app');

/** The origins a view declares it needs (`_meta.ui.csp` of its resource); each list is empty unless declared. */
export const McpAppCspSchema = z.object({
  connectDomains: z.array(z.string()),
  resourceDomains: z.array(z.string()),
  frameDomains: z.array(z.string()),
  baseUriDomains: z.array(z.string()),
});
export type McpAppCsp = z.infer<typeof McpAppCspSchema>;

/** Device permissions a view may ask for (`_meta.ui.permissions`); none is granted unless the person allows it. */
export const McpAppPermissionSchema = z.enum(['camera', 'microphone', 'geolocation', 'clipboardWrite']);
export type McpAppPermission = z.infer<typeof McpAppPermissionSchema>;

/** Which view to fetch: the one a tool of that server declares (a view is never fetched by a URI the renderer names). */
export const McpAppViewInputSchema = z.strictObject({
  name: z.string().min(1).max(200),
  tool: z.string().min(1).max(200),
});

/** A view as the host renders it: its HTML, the hash it is pinned by, and what it declared. */
export const McpAppViewSchema = z.object({
  serverName: z.string(),
  uri: z.string(),
  html: z.string(),
  /** Hex SHA-256 of the HTML and the declared CSP and permissions (docs/user/mcp-apps.md#reading-a-view). */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  csp: McpAppCspSchema,
  permissions: z.array(McpAppPermissionSchema),
  prefersBorder: z.boolean().optional(),
  /** Declared entries that were dropped (not an origin, a wildcard for everything, CSP syntax), for the server's log. */
  notices: z.array(z.string()),
  /**
   * Its pin for the server's identity (docs/user/mcp-apps.md#pinned-views): `first` (pinned now, as it is first shown),
   * `same` (the pinned view), or `changed` (not shown until the person accepts it; `changes` says what changed).
   */
  pin: z.object({ status: z.enum(['first', 'same', 'changed']), changes: z.array(z.string()).optional() }).optional(),
  /** The identity key of the server it was read from; a view of a call made to another is stale. */
  identity: z.string().optional(),
});
export type McpAppView = z.infer<typeof McpAppViewSchema>;

/** The person accepts a changed view: the hash they were shown, so that a view changed again meanwhile is not taken. */
export const McpAppViewAcceptInputSchema = z.strictObject({
  name: z.string().min(1).max(200),
  tool: z.string().min(1).max(200),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
/**
 * One origin as CSP source syntax allows it and nothing more: a scheme of http(s) or ws(s), a host (its leftmost
 * label may be `*`), an optional port. No paths, quotes, spaces or semicolons, so a declared domain cannot add a
 * directive or a keyword such as 'unsafe-eval' to the policy.
 */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/** The declared CSP and permissions of a view resource's `_meta`, with what had to be dropped. */
export function appDeclarationsOf(meta: unknown): {
  csp: McpAppCsp;
  permissions: McpAppPermission[];
  prefersBorder?: boolean;
  notices: string[];
} {
  const ui = isObject(meta) && isObject(meta.ui) ? meta.ui : {};
  const declared = isObject(ui.csp) ? ui.csp : {};
  const notices: string[] = [];
  const csp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] } as McpAppCsp;
  for (const key of CSP_KEYS) {
    const list = declared[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      notices.push(`csp.${key} is not a list; nothing of it is allowed.`);
      continue;
    }
    for (const item of list) {
      if (typeof item === 'string' && ORIGIN.test(item)) {
        if (!csp[key].includes(item)) csp[key].push(item);
      } else
        notices.push(
          `csp.${key}: ${JSON.stringify(item)} is not an origin such as https://api.example.com; it is not allowed.`,
        );
    }
  }
  const permissions: McpAppPermission[] = [];
  if (isObject(ui.permissions)) {
    for (const [name, value] of Object.entries(ui.permissions)) {
      const parsed = McpAppPermissionSchema.safeParse(name);
      if (parsed.success && value !== undefined && value !== false) permissions.push(parsed.data);
      else notices.push(`permissions.${name} is not a permission a view may ask for.`);
    }
  }
  return {
    csp,
    permissions,
    ...(typeof ui.prefersBorder === 'boolean' ? { prefersBorder: ui.prefersBorder } : {}),
    notices,
  };
}

/**
 * The Content-Security-Policy a view runs under: `default-src 'none'`, its own inline scripts and styles (a view is one
 * HTML document), and the declared origins for what each list covers; nothing else (docs/user/mcp-apps.md#what-a-view-may-do).
 */
export function contentSecurityPolicyOf(csp: McpAppCsp): string {
  const list = (items: readonly string[]): string => (items.length > 0 ? ` ${items.join(' ')}` : '');
  const resources = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline'${resources}`,
    `style-src 'unsafe-inline'${resources}`,
    `img-src data: blob:${resources}`,
    `font-src data:${resources}`,
    `media-src data: blob:${resources}`,
    `connect-src${list(csp.connectDomains) || " 'none'"}`,
    `frame-src${list(csp.frameDomains) || " 'none'"}`,
    `base-uri${list(csp.baseUriDomains) || " 'none'"}`,
    "form-action 'none'",
    "object-src 'none'",
    "worker-src 'none'",
  ].join('; ');
}

/** Which view asks: the tool call whose view it is, in its chat. The server is the call's own, never one the view names. */
const ViewCallShape = {
  chatId: z.string().min(1).max(200),
  viewCallId: z.string().min(1).max(200),
};

/** A view's `tools/call` (docs/user/mcp-apps.md#what-a-view-may-ask). */
export const AppCallToolInputSchema = z.strictObject({
  ...ViewCallShape,
  tool: z.string().min(1).max(200),
  arguments: z.unknown().optional(),
});

/** A view's `resources/read`: a resource of the view's own server. */
export const AppReadResourceInputSchema = z.strictObject({ ...ViewCallShape, uri: z.string().min(1).max(8192) });

/** A view's `ui/open-link`, checked before the person is asked to confirm it. */
export const AppOpenLinkInputSchema = z.strictObject({ ...ViewCallShape, url: z.string().max(100_000) });
export const AppOpenLinkOutputSchema = z.object({ url: z.string(), host: z.string() });

/**
 * A refusal that happened in the page or the view's frame, not in the main process (docs/user/mcp-apps.md#in-the-audit-log):
 * a link the person did not open (`ui/open-link`), or a request the frame's Content-Security-Policy blocked (`csp`).
 * Recorded like the host's own refusals.
 */
export const AppRefusalInputSchema = z.strictObject({
  ...ViewCallShape,
  what: z.enum(['ui/open-link', 'csp']),
  detail: z.string().max(2000),
});
export type AppRefusalInput = z.infer<typeof AppRefusalInputSchema>;

/**
 * A proxy frame made before its view was known (renderer chat/apps/proxy-frames.ts) carries a slot id in its address
 * instead of the chat and call (docs/user/mcp-apps.md#in-the-audit-log): 16 random bytes, base64url.
 */
export const APP_FRAME_SLOT_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

/** The page says which view the pool frame of `slot` now serves; a slot is bound once. */
export const AppFrameSlotInputSchema = z.strictObject({
  ...ViewCallShape,
  slot: z.string().regex(APP_FRAME_SLOT_PATTERN),
});
export type AppFrameSlotInput = z.infer<typeof AppFrameSlotInputSchema>;

/**
 * What the page tells its proxy frame to drop the view's frame (the proxy page of main/host/app-frame-server.ts), before
 * it keeps the blank frame for the next showing of the same view (renderer chat/apps/proxy-frames.ts).
 */
export const PROXY_DROP_VIEW = 'x-workbench/drop-view';
