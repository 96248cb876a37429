/**
 * The Content-Security-Policy of every page the app shows, in Electron and in browser mode.
 * No inline script, no eval, no remote content; the only connection is back to our own origin
 * (browser mode's WebSocket), which `connectSources` names explicitly.
 */
export function contentSecurityPolicy(
  connectSources: readonly string[] = [],
  frameSources: readonly string[] = [],
): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'", ...connectSources],
    'manifest-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    // The app frame origin, where MCP Apps views run (docs/user/mcp-apps.md); nothing else may be framed.
    ...(frameSources.length > 0 ? { 'frame-src': [...frameSources] } : {}),
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

/** Headers sent with every page and asset, in both hosts. */
export function securityHeaders(
  connectSources: readonly string[] = [],
  frameSources: readonly string[] = [],
): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(connectSources, frameSources),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=()',
  };
}
