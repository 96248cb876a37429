/**
 * The app frame origin as a host starts it (docs/user/mcp-apps.md#how-a-view-is-shown): browser mode's server and the
 * Electron window both start it here, so what a view's policy blocked and which view a pool frame serves reach the
 * contract the same way in both hosts.
 */
import type { AppFrameSlots } from '../mcp/app-frame-slots';
import { APP_FRAME_PATH, startAppFrameServer, type AppFrameServer } from './app-frame-server';
import type { Dispatch } from './dispatcher';

export interface AppFrameOriginOptions {
  /** The page origins that may frame the proxy and talk to it. */
  hostOrigins: () => readonly string[];
  /** The contract: each report of the frame's policy becomes an `apps.recordRefusal`. */
  dispatch: Dispatch;
  /** The views pool frames were bound to through the contract; undefined while the services start. */
  frameSlots: () => Pick<AppFrameSlots, 'viewOf'> | undefined;
  log: (line: string) => void;
  /** 0 (any free port) unless a test names one. */
  port?: number;
}

/** The started frame origin, or null when it could not start (why went to `log`): views then say they cannot be shown. */
export async function startAppFrameOrigin(options: AppFrameOriginOptions): Promise<AppFrameServer | null> {
  try {
    return await startAppFrameServer({
      hostOrigins: options.hostOrigins,
      // What the view's frame blocked is recorded like the host's own refusals (docs/user/mcp-apps.md#in-the-audit-log).
      onReport: ({ chatId, viewCallId, detail }) =>
        void options.dispatch('apps.recordRefusal', { chatId, viewCallId, what: 'csp', detail }),
      slotView: (slot) => options.frameSlots()?.viewOf(slot),
      port: options.port,
    });
  } catch (error) {
    options.log(`MCP Apps views cannot be shown: their frame origin did not start (${(error as Error).message}).`);
    return null;
  }
}

/** The frame origin under both loopback names: it answers to either, and every frame on either runs a view. */
export function frameOriginsOf(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * The frame origin a page on `pageHostname` frames: another site than the page, whose frames Chromium runs in a process
 * of their own, off the page's thread (docs/user/mcp-apps.md#how-a-view-is-shown). `127.0.0.1`, a literal address that
 * no resolver or hosts file can point elsewhere and that is always a secure context (so a page on the app's secure
 * scheme may frame it), unless the page is on that name already: then `localhost`.
 */
export function frameOriginFor(pageHostname: string, port: number): string {
  return pageHostname === '127.0.0.1' ? `http://localhost:${port}` : `http://127.0.0.1:${port}`;
}

/** The proxy page's address for a page on `pageHostname`. */
export function appFrameUrlFor(pageHostname: string, port: number): string {
  return `${frameOriginFor(pageHostname, port)}${APP_FRAME_PATH}`;
}
