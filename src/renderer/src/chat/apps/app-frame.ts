import type { McpAppView } from '../../../../shared/mcp-apps';

/**
 * Where views run: the app frame origin's proxy page, which browser mode's server names at /app-frame.json
 * (docs/user/mcp-apps.md#how-a-view-is-shown). Null where there is none (the Electron window).
 */
let known: Promise<string | null> | null = null;
let answered: { url: string | null } | null = null;

export function appFrameUrl(): Promise<string | null> {
  known ??= fetch('/app-frame.json', { cache: 'no-store' })
    .then(async (response) => {
      if (!response.ok) return null;
      const body = (await response.json()) as { url?: unknown };
      return typeof body.url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost):\d+\//.test(body.url)
        ? body.url
        : null;
    })
    .catch(() => null)
    .then((url) => {
      answered = { url };
      return url;
    });
  return known;
}

/** `appFrameUrl()`'s answer once it came (a view mounted later takes its frame in its first commit), else undefined. */
export const appFrameUrlNow = (): string | null | undefined => answered?.url;

/** The declared domains a proxy frame's address carries (`?csp=`), as one string to compare. */
export const declaredKey = (csp: McpAppView['csp']): string => JSON.stringify(csp ?? {});
/** What a view that declares no domains has (`appDeclarationsOf`): the pool frames' policy, and the first guess. */
export const NOTHING_DECLARED = declaredKey({
  connectDomains: [],
  resourceDomains: [],
  frameDomains: [],
  baseUriDomains: [],
});
