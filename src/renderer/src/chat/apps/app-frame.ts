/**
 * Where views run: the app frame origin's proxy page, which browser mode's server names at /app-frame.json
 * (docs/user/mcp-apps.md#how-a-view-is-shown). Null where there is none (the Electron window).
 */
let known: Promise<string | null> | null = null;

export function appFrameUrl(): Promise<string | null> {
  known ??= fetch('/app-frame.json', { cache: 'no-store' })
    .then(async (response) => {
      if (!response.ok) return null;
      const body = (await response.json()) as { url?: unknown };
      return typeof body.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\//.test(body.url) ? body.url : null;
    })
    .catch(() => null);
  return known;
}
