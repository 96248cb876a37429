/**
 * The Electron security checklist as plain data and pure functions, so tests can check each item
 * without an Electron binary. main.ts only wires these into Electron's hooks.
 */
import { APP_FRAME_PATH } from '../host/app-frame-server';
import { isAppUrl } from './window-options';

/** What to do when a page tries to navigate away or open a window. */
export type NavigationVerdict = 'allow' | 'deny' | 'open-externally-after-confirmation';

/**
 * Our own pages may navigate among themselves; http(s) links are offered to the person's browser
 * after they confirm; everything else (file:, javascript:, data:, custom schemes) is refused.
 */
export function navigationVerdict(url: string, devServerUrl?: string): NavigationVerdict {
  if (isAppUrl(url, devServerUrl)) return 'allow';
  return isExternalWebLink(url) ? 'open-externally-after-confirmation' : 'deny';
}

/** Only plain web links with a host may leave the app, and never with credentials in them. */
export function isExternalWebLink(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (
      (parsed.protocol === 'https:' || parsed.protocol === 'http:') &&
      parsed.hostname !== '' &&
      parsed.username === '' &&
      parsed.password === ''
    );
  } catch {
    return false;
  }
}

/**
 * Web permissions our pages may use. None are needed: notifications are shown by the main process,
 * clipboard writes from a click need no permission. Everything else (camera, microphone,
 * geolocation, MIDI, HID, serial, USB, …) is refused.
 */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/** A frame that asks for a permission: the last URL it loaded (none when not on behalf of a page) and where it is. */
export interface PermissionRequester {
  url: string | undefined;
  isMainFrame: boolean;
}

/** Where the window's pages and the views they frame come from. */
export interface WindowOrigins {
  /** The renderer's dev server while developing, else undefined. */
  devServerUrl?: string;
  /** The app frame origin under each loopback name, where MCP Apps views run (docs/user/mcp-apps.md#how-a-view-is-shown). */
  viewFrameOrigins: readonly string[];
}

/** True for a page on the app frame origin: a view's proxy page, under either loopback name. */
export function isViewFrameUrl(url: string, viewFrameOrigins: readonly string[]): boolean {
  try {
    return viewFrameOrigins.includes(new URL(url).origin);
  } catch {
    return false;
  }
}

/**
 * A permission is granted only to the main frame of one of our own pages, and only if it is one the app needs. Frames
 * share their window's session, so a view's frames ask through the same handlers: the proxy page on the app frame
 * origin and the view inside it (an opaque origin, `about:srcdoc`) are refused every permission (docs/user/mcp-apps.md#what-a-view-may-do).
 */
export function permissionGranted(permission: string, requester: PermissionRequester, origins: WindowOrigins): boolean {
  if (requester.url === undefined || isViewFrameUrl(requester.url, origins.viewFrameOrigins)) return false;
  return GRANTED_PERMISSIONS.has(permission) && requester.isMainFrame && isAppUrl(requester.url, origins.devServerUrl);
}

/** A navigation about to start in a frame of the window: where to, which frame, and the URL of the frame that started it. */
export interface FrameNavigation {
  url: string;
  isMainFrame: boolean;
  /** Undefined when no frame started it (the app's own `loadURL`, a reload). */
  initiatorUrl?: string;
}

/**
 * The window navigates as `navigationVerdict` says, but only when our own page (or no frame) started it: a view's
 * frames never navigate the window nor have a link offered, their links go through the host's `ui/open-link`
 * confirmation (docs/user/mcp-apps.md#how-a-views-requests-are-decided). A frame inside the window loads only the app
 * frame origin's proxy page or the view's `srcdoc`; anything else is refused.
 */
export function frameNavigationVerdict(navigation: FrameNavigation, origins: WindowOrigins): NavigationVerdict {
  if (navigation.isMainFrame) {
    const { initiatorUrl } = navigation;
    if (initiatorUrl !== undefined && !isAppUrl(initiatorUrl, origins.devServerUrl)) return 'deny';
    return navigationVerdict(navigation.url, origins.devServerUrl);
  }
  if (navigation.url === 'about:srcdoc' || navigation.url === 'about:blank') return 'allow';
  return isViewFrameUrl(navigation.url, origins.viewFrameOrigins) && new URL(navigation.url).pathname === APP_FRAME_PATH
    ? 'allow'
    : 'deny';
}

/**
 * A contract call is served only for a frame of one of our own windows showing one of our pages;
 * a subframe or a page that navigated elsewhere is refused.
 */
export function isTrustedIpcSender(
  sender: { frameUrl: string | undefined; isOwnWindow: boolean; isMainFrame: boolean },
  devServerUrl?: string,
): boolean {
  return (
    sender.isOwnWindow && sender.isMainFrame && sender.frameUrl !== undefined && isAppUrl(sender.frameUrl, devServerUrl)
  );
}

/** The question asked before a link leaves the app. */
export function externalLinkPrompt(url: string): {
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
} {
  const parsed = new URL(url);
  return {
    message: `Open ${parsed.host} in your browser?`,
    detail: `AI Workbench will open this address in your default browser:\n\n${url}`,
    buttons: ['Open in browser', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}
