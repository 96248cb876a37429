// Must stay the first import: it configures zod before any schema is built.
import '../../shared/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { buildWorkbenchApi } from '../../shared/api';
import { App } from './App';
import { QuickChat } from './chat/QuickChat';
import { connectBrowserBridge, type BrowserBridge } from './bridge/browser-bridge';
import { takeToken } from './bridge/token';
import { MissingToken } from './components/MissingToken';
import './styles.css';

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
  <StrictMode>{api ? quick ? <QuickChat api={api} bridge={bridge} /> : <App api={api} bridge={bridge} /> : <MissingToken />}</StrictMode>,
);
