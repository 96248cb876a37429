// The page's entry, kept small (docs/dev/benchmarks.md, app-start): in browser mode it opens the connection and asks
// for the chat list while the app's code (start.tsx) still loads, so that both are there when the app starts.
import { connectBrowserBridge } from './bridge/browser-bridge';
import { keepToken, pageToken } from './bridge/token';

// In Electron the preload provides window.workbench; in browser mode the page talks over a WebSocket.
const token = window.workbench ? null : pageToken();
const bridge = token ? connectBrowserBridge(token) : undefined;
const listed = bridge?.prefetch('chat.list', undefined);
const app = import('./start');

app.then(
  ({ start }) => start(bridge),
  (error: unknown) => {
    document.body.textContent = `AI Workbench could not load its page: ${error instanceof Error ? error.message : String(error)}. Reload to try again.`;
  },
);
// Once the first screen is up: the app's code ran, the list it shows came, and the page is idle. The first write to
// the session storage takes ~20 ms here, which the app's code, had it arrived meanwhile, would have waited for
// (docs/dev/benchmarks.md, app-start). Until then a reload still finds the token in the address.
if (token) {
  void Promise.all([app, listed]).then(
    () => requestIdleCallback(() => keepToken(token), { timeout: 2000 }),
    () => undefined,
  );
}
