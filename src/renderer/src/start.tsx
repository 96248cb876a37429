// The app, started by the page's entry (main.tsx) with the connection it opened. Its first screen loads no zod
// schema (docs/dev/benchmarks.md, app-start): the chunks that build schemas, loaded on demand, configure zod first
// themselves (src/shared/zod.ts).
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { buildWorkbenchApi } from '../../shared/api';
import { App } from './App';
import type { BrowserBridge } from './bridge/browser-bridge';
import { MissingToken } from './components/MissingToken';
import './styles.css';

// Only the desktop app's quick chat window shows it.
const QuickChat = lazy(() => import('./chat/QuickChat').then((module) => ({ default: module.QuickChat })));

/** Renders the app over `bridge` in browser mode, over the preload's `window.workbench` in Electron. */
export function start(bridge: BrowserBridge | undefined): void {
  const container = document.getElementById('root');
  if (!container) throw new Error('index.html has no #root element');
  const api = window.workbench ?? (bridge ? buildWorkbenchApi(bridge) : null);
  // The desktop app's quick chat window loads the same page at #/quick.
  const quick = window.location.hash.startsWith('#/quick');
  createRoot(container).render(
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
}
