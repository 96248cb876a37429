import type { MethodName } from './contract';

/** The Electron IPC channel of one contract method; the preload and main both derive it from here. */
export function callChannel(method: MethodName): string {
  return `workbench:call:${method}`;
}

/** Every contract event travels on this one channel as `{ event, payload }`. */
export const EVENT_CHANNEL = 'workbench:event';

/**
 * The Electron window's answer to "where do views run" (docs/user/mcp-apps.md#how-a-view-is-shown): the app frame
 * origin's proxy page, or null when it did not start. Browser mode's page reads the same from /app-frame.json.
 */
export const APP_FRAME_URL_CHANNEL = 'workbench:app-frame-url';

/** What the Electron preload gives the page besides the contract: `window.workbenchHost`. */
export interface WorkbenchHost {
  appFrameUrl(): Promise<string | null>;
}
