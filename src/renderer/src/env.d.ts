/// <reference types="vite/client" />
import type { WorkbenchApi } from '../../shared/api';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode until the WebSocket bridge builds it. */
    readonly workbench?: WorkbenchApi;
  }
}
