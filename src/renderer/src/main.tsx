// The page's entry. Its first screen loads no zod schema (docs/dev/benchmarks.md, app-start): the chunks that build
// schemas, loaded on demand, configure zod first themselves (src/shared/zod.ts).
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { buildWorkbenchApi } from '../../shared/api';
import { App } from './App';
import { connectBrowserBridge, type BrowserBridge } from './bridge/browser-bridge';
import { takeToken } from './bridge/token';
import { MissingToken } from './components/MissingToken';
import './styles.css';

// Only the desktop app's quick chat window shows it.
const QuickChat = lazy(() => import('./chat/QuickChat').then((module) => ({ default: module.QuickChat })));

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = createRoot(container);

// In Electron the preload provides window.workbench; in browser mode we build it over the WebSocket.
let bridge: BrowserBridge | undefined;
const api = window.workbench ?? (() => {
  const token = takeToken();
  if (!token) return null;
  bridge = connectBrowserBridge(token);
  return buildWorkbenchApi(bridge);
})();

// The desktop app's quick chat window loads the same page at #/quick.
const quick = window.location.hash.startsWith('#/quick');

root.render(
  <StrictMode>
    {api ? (
      quick ? (
        <Suspense fallback={null}>
          <QuickChat api={api} bridge={bridge} />
        </Suspense>
      ) : (
        <App api={api} bridge={bridge} />
      )
    ) : (
      <MissingToken />
    )}
  </StrictMode>,
);
