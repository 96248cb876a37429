/**
 * The Electron window's app frame origin, where MCP Apps views run (docs/user/mcp-apps.md#how-a-view-is-shown): the
 * same server, frame slots and report path as browser mode's (host/app-frame-origin.ts), framed by the window's page
 * alone. Plain data and injected pieces, so tests run without an Electron binary; main.ts only wires them.
 */
import { appFrameUrlFor, frameOriginFor, frameOriginsOf, startAppFrameOrigin } from '../host/app-frame-origin';
import type { AppFrameOriginOptions } from '../host/app-frame-origin';
import { APP_FRAME_URL_CHANNEL } from '../../shared/ipc';

export interface WindowViewFrames {
  /** The proxy page's address the window's page frames; null when the frame origin did not start. */
  readonly url: string | null;
  /** What the window's Content-Security-Policy lets the page frame (`frame-src`): that one origin, nothing else. */
  readonly frameSources: readonly string[];
  /** The frame origin under both loopback names: every frame on it runs a view (security-policy.ts). */
  readonly viewFrameOrigins: readonly string[];
  close(): Promise<void>;
}

/** `app://workbench` for the app scheme (whose URL origin Node calls "null"), the dev server's origin otherwise. */
export function pageOriginOf(pageUrl: string): string {
  const parsed = new URL(pageUrl);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * What the window uses of a started frame origin (`port`), or of none. The window's page is on the app scheme, so
 * either loopback name is another site; it frames the one `frameOriginFor` picks (127.0.0.1, see there), and its
 * policy names that origin alone.
 */
export function windowViewFramesOf(
  started: { port: number; close(): Promise<void> } | null,
  pageUrl: string,
): WindowViewFrames {
  if (!started) return { url: null, frameSources: [], viewFrameOrigins: [], close: async () => {} };
  const pageHostname = new URL(pageUrl).hostname;
  return {
    url: appFrameUrlFor(pageHostname, started.port),
    frameSources: [frameOriginFor(pageHostname, started.port)],
    viewFrameOrigins: frameOriginsOf(started.port),
    close: () => started.close(),
  };
}

/** Starts the frame origin for the window's page on `pageUrl` (the app scheme's entry, or the dev server's). */
export async function startWindowViewFrames(
  options: { pageUrl: string } & Pick<AppFrameOriginOptions, 'dispatch' | 'frameSlots' | 'log'>,
): Promise<WindowViewFrames> {
  const pageOrigin = pageOriginOf(options.pageUrl);
  const started = await startAppFrameOrigin({
    hostOrigins: () => [pageOrigin],
    dispatch: options.dispatch,
    frameSlots: options.frameSlots,
    log: options.log,
  });
  return windowViewFramesOf(started, options.pageUrl);
}

/** The part of Electron's `ipcMain` the frame URL's channel needs. */
export interface AppFrameUrlIpc<Event> {
  handle(channel: string, listener: (event: Event) => Promise<string | null>): void;
  removeHandler(channel: string): void;
}

/**
 * Answers the preload's `appFrameUrl()` (the window's one source of the address, as /app-frame.json is browser
 * mode's): the frame origin's address once started, null to a sender that is not one of our own pages.
 */
export function registerAppFrameUrl<Event>(
  ipc: AppFrameUrlIpc<Event>,
  frames: Promise<WindowViewFrames>,
  isTrustedSender: (event: Event) => boolean,
): () => void {
  ipc.handle(APP_FRAME_URL_CHANNEL, async (event) => (isTrustedSender(event) ? (await frames).url : null));
  return () => ipc.removeHandler(APP_FRAME_URL_CHANNEL);
}
