import { createHash } from 'node:crypto';
import type { McpSession } from './mcp-session';
import { canonicalJson } from '../../shared/canonical-json';
import { WorkbenchError } from '../errors';
import { appDeclarationsOf, isUiUri, MCP_APP_MIME_TYPE, type McpAppView } from '../../shared/mcp-apps';

/** A view larger than this is refused: it is one HTML document, not a download. */
export const APP_VIEW_MAX_CHARS = 5_000_000;

/**
 * Reads a tool's view (`resources/read` of its `ui://` URI) and checks it is one: a single content of type
 * `text/html;profile=mcp-app` with its HTML as text (or base64), under APP_VIEW_MAX_CHARS. Its declared CSP domains
 * and permissions are kept only as far as they are origins and permissions we know (docs/user/mcp-apps.md).
 */
export async function readAppView(
  serverName: string,
  client: McpSession,
  uri: string,
  timeoutMs: number,
): Promise<McpAppView> {
  if (!isUiUri(uri))
    throw new WorkbenchError('invalid_input', `"${uri}" is not a ui:// URI, so it is not a view.`, {
      server: serverName,
    });
  const result = await client.readResource({ uri }, { timeout: timeoutMs });
  const content = result.contents.find((item) => item.uri === uri) ?? result.contents[0];
  const refuse = (why: string): never => {
    throw new WorkbenchError('unavailable', `The view ${uri} of "${serverName}" cannot be shown: ${why}`, {
      server: serverName,
    });
  };
  if (!content) return refuse('the server returned no content for it.');
  const mimeType = (content.mimeType ?? '').replace(/\s+/g, '').toLowerCase();
  if (mimeType !== MCP_APP_MIME_TYPE)
    return refuse(`its type is ${content.mimeType ? `"${content.mimeType}"` : 'not given'}, not ${MCP_APP_MIME_TYPE}.`);
  const html =
    'text' in content && typeof content.text === 'string'
      ? content.text
      : 'blob' in content && typeof content.blob === 'string'
        ? Buffer.from(content.blob, 'base64').toString('utf8')
        : refuse('it has neither text nor a blob.');
  if (html.length > APP_VIEW_MAX_CHARS)
    refuse(`it is ${html.length} characters long; a view may have at most ${APP_VIEW_MAX_CHARS}.`);
  const declared = appDeclarationsOf(content._meta);
  const { notices, ...pinned } = declared;
  const hash = createHash('sha256')
    .update(canonicalJson({ html, csp: pinned.csp, permissions: pinned.permissions }))
    .digest('hex');
  return { serverName, uri, html, hash, ...pinned, notices };
}
