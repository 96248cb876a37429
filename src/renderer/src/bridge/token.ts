const STORAGE_KEY = 'aiwb.token';
const IN_ADDRESS = /(?:^#|&)token=([A-Za-z0-9_-]+)/;

/** The browser-mode token: from the URL fragment (`#token=…`), else (after a reload) from this tab's session. */
export function pageToken(): string | null {
  return IN_ADDRESS.exec(window.location.hash)?.[1] ?? sessionStorage.getItem(STORAGE_KEY);
}

/**
 * Keeps the token for this tab's session, so that a reload still works, and removes it from the address bar. Called
 * once the first screen is up: the first write to the session storage waits on the browser (~15 ms on a slow host;
 * docs/dev/benchmarks.md, app-start).
 */
export function keepToken(token: string): void {
  if (!IN_ADDRESS.test(window.location.hash)) return;
  sessionStorage.setItem(STORAGE_KEY, token);
  history.replaceState(null, '', window.location.pathname + window.location.search);
}

export function forgetToken(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
