const STORAGE_KEY = 'aiwb.token';

/**
 * Takes the browser-mode token from the URL fragment (`#token=…`), keeps it for this tab's
 * session so a reload still works, and removes it from the address bar.
 */
export function takeToken(): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match?.[1]) {
    sessionStorage.setItem(STORAGE_KEY, match[1]);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1];
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

export function forgetToken(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
