/// <reference types="vite/client" />
import type { WorkbenchApi } from '../../shared/api';
import type { WorkbenchHost } from '../../shared/ipc';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode until the WebSocket bridge builds it. */
    readonly workbench?: WorkbenchApi;
    /** Set by the Electron preload alone: what the window's host gives besides the contract. */
    readonly workbenchHost?: WorkbenchHost;
  }
}
