import { visibleToApp } from '../../shared/mcp-apps';
import type { McpTool } from '../../shared/mcp';

/**
 * What a view asks the host for (docs/user/mcp-apps.md#what-a-view-may-ask): a call of a tool, a resource, a link
 * to open. `serverName` is the server whose view asks: the view's own, never a name the view gives.
 */
export type AppRequest =
  | { readonly kind: 'tools/call'; readonly serverName: string; readonly toolName: string; readonly args: unknown }
  | {
      readonly kind: 'resources/read';
      readonly serverName: string;
      readonly targetServer?: string | undefined;
      readonly uri: string;
    }
  | { readonly kind: 'ui/open-link'; readonly serverName: string; readonly url: string };

/** A request that may go on to the person or the decision pipeline, with what they are shown; or why it may not. */
export type AppRequestScreening =
  | { readonly ok: true; readonly kind: 'tools/call'; readonly tool: McpTool; readonly args: Record<string, unknown> }
  | { readonly ok: true; readonly kind: 'resources/read'; readonly uri: string }
  | { readonly ok: true; readonly kind: 'ui/open-link'; readonly url: string; readonly host: string }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string): AppRequestScreening => ({ ok: false, reason });
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** The longest link a view may ask to open. */
export const APP_LINK_MAX_CHARS = 8192;

/**
 * The checks in front of the decision pipeline: what no rule or person may allow a view. A tool call names a tool of
 * the view's own server, callable by views (`visibility` includes "app") and usable now, with arguments that are an
 * object; a resource read stays on the view's own server; a link is http(s) with a host. What passes still goes
 * through the same pipeline as the model's calls (deny rules, settings, grants, rules, ask).
 */
export function screenAppRequest(request: AppRequest, tools: readonly McpTool[]): AppRequestScreening {
  switch (request.kind) {
    case 'tools/call': {
      const tool = tools.find((item) => item.serverName === request.serverName && item.name === request.toolName);
      if (!tool) {
        const elsewhere = tools.some((item) => item.name === request.toolName);
        return refuse(
          elsewhere
            ? `A view of "${request.serverName}" may call only that server's tools; "${request.toolName}" is not one of them.`
            : `"${request.serverName}" has no tool named "${request.toolName}".`,
        );
      }
      if (!visibleToApp(tool))
        return refuse(
          `The tool "${tool.name}" of "${tool.serverName}" is for the model only; its view may not call it.`,
        );
      if (tool.problem) return refuse(`The tool "${tool.name}" cannot be used: ${tool.problem}`);
      if (!tool.available) return refuse(`"${tool.serverName}" is not ready, so "${tool.name}" cannot be called now.`);
      const args = request.args ?? {};
      if (!isObject(args)) return refuse(`The arguments of "${tool.name}" are not a JSON object.`);
      return { ok: true, kind: 'tools/call', tool, args };
    }
    case 'resources/read': {
      if (request.targetServer !== undefined && request.targetServer !== request.serverName) {
        return refuse(
          `A view of "${request.serverName}" may read only that server's resources, not those of "${request.targetServer}".`,
        );
      }
      if (typeof request.uri !== 'string' || request.uri.length === 0 || request.uri.length > APP_LINK_MAX_CHARS)
        return refuse('The resource URI is empty or too long.');
      return { ok: true, kind: 'resources/read', uri: request.uri };
    }
    case 'ui/open-link': {
      if (typeof request.url !== 'string' || request.url.length > APP_LINK_MAX_CHARS)
        return refuse('The link is not text or is too long.');
      let url: URL;
      try {
        url = new URL(request.url.trim());
      } catch {
        return refuse(`${JSON.stringify(request.url.slice(0, 200))} is not a link.`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        return refuse(`A view may open only http and https links, not ${url.protocol} ones.`);
      if (!url.hostname) return refuse('The link has no host.');
      if (url.username || url.password)
        return refuse('A link with a user name or password in it is not opened: its real host is easy to mistake.');
      return { ok: true, kind: 'ui/open-link', url: url.href, host: url.host };
    }
  }
}
