/**
 * The Electron security checklist as plain data and pure functions, so tests can check each item
 * without an Electron binary. main.ts only wires these into Electron's hooks.
 */
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

export function permissionGranted(permission: string, requestingUrl: string, devServerUrl?: string): boolean {
  return GRANTED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl, devServerUrl);
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
