import type { McpAppView } from '../../../../shared/mcp-apps';

/**
 * Where views run: the app frame origin's proxy page (docs/user/mcp-apps.md#how-a-view-is-shown), from the one source
 * each host has: the Electron window's preload (`window.workbenchHost`, answered by the main process that started the
 * origin), browser mode's server at /app-frame.json. Null when the host could not start the origin.
 */
let known: Promise<string | null> | null = null;
let answered: { url: string | null } | null = null;

/** What the host says, unchecked. */
function hostAnswer(): Promise<unknown> {
  const host = window.workbenchHost;
  if (host) return host.appFrameUrl();
  return fetch('/app-frame.json', { cache: 'no-store' }).then(async (response) =>
    response.ok ? ((await response.json()) as { url?: unknown }).url : null,
  );
}

export function appFrameUrl(): Promise<string | null> {
  // Through a promise's executor: a host whose answer throws at once gives null like one that rejects.
  known ??= new Promise<unknown>((resolve) => resolve(hostAnswer()))
    .then((url) => (typeof url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost):\d+\//.test(url) ? url : null))
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
