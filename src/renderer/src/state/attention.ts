import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { PendingApproval } from '../../../shared/approval';
import type { Chat } from '../../../shared/chat';
import { createLocalFlag } from './local-flag';

/**
 * What waits while the person looks elsewhere (docs/user/approvals.md "What waits"): the window title counts
 * everything that waits (the sidebar's count: tool calls and servers' requests, held here or by another process); in
 * browser mode the tab's favicon shows the count too, and — once the person
 * turned them on from the app's offer — a notification says which call waits when the page is hidden. (The desktop
 * app's notifications come from its main process: src/main/electron/.)
 */

/** The page's own title (index.html), which the count of what waits is put before; read when first needed. */
let appTitle: string | undefined;
/** The icon's `href` as the page wrote it ("./favicon.svg"), not the resolved URL. */
let plainIcon: string | undefined;

/** The person said "Not now" to the notification offer: it is not made again in this browser profile. */
export const notificationOfferDeclined = createLocalFlag('aiwb.notificationOfferDeclined');

/** The browser's notification permission: read when the offer first needs it, and again after the offer's answer. */
export type NotificationPermissionState = NotificationPermission | 'unsupported';
const permissionListeners = new Set<() => void>();
const readPermission = (): NotificationPermissionState =>
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
/**
 * The last permission read. Reading `Notification.permission` asks the browser process each time (0.2 ms; several ms
 * while a page loads), and a render reads its store's value more than once: unkept, it cost the first screen ~13 ms
 * (docs/dev/benchmarks.md, app-start).
 */
let permission: NotificationPermissionState | undefined;
export const notificationPermission = {
  get: (): NotificationPermissionState => (permission ??= readPermission()),
  subscribe(listener: () => void): () => void {
    permissionListeners.add(listener);
    return () => permissionListeners.delete(listener);
  },
  /** Asks the browser (it must follow a click); says what it answered. */
  async request(): Promise<NotificationPermissionState> {
    if (typeof Notification === 'undefined') return 'unsupported';
    await Notification.requestPermission();
    permission = readPermission();
    for (const listener of [...permissionListeners]) listener();
    return permission;
  },
};

export function useNotificationPermission(): NotificationPermissionState {
  return useSyncExternalStore(notificationPermission.subscribe, notificationPermission.get);
}

/** The app's icon with the count in a red dot ("9+" above nine): an SVG data URL for the tab's favicon. */
export function faviconWithCount(count: number): string {
  const text = count > 9 ? '9+' : String(count);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/><g fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" transform="translate(4 4)"><path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z"/></g><circle cx="20.5" cy="11.5" r="11.5" fill="#dc2626" stroke="#fff" stroke-width="1.5"/><text x="20.5" y="${text.length > 1 ? 16 : 17.5}" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="${text.length > 1 ? 13 : 17}" font-weight="700" fill="#fff">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** What a notification says about one waiting call. */
export function notificationOf(
  approval: PendingApproval,
  chatTitle: string | undefined,
): { title: string; body: string } {
  const { toolName, serverName } = approval.request;
  return {
    title: 'A tool call waits for your decision',
    body: `Run ${toolName} from ${serverName}${chatTitle ? ` — in “${chatTitle}”` : ''}`,
  };
}

export interface AttentionOptions {
  api: WorkbenchApi;
  total: number;
  /** Browser mode: the favicon and the page's own notifications. */
  browser: boolean;
  chats: readonly Chat[];
  /** A notification was clicked: open this call in the inbox (docs/user/approvals.md, "One inbox"). */
  open(approval: PendingApproval): void;
}

export function useWaitingAttention({ api, total, browser, chats, open }: AttentionOptions): void {
  useEffect(() => {
    // Each is written only when it changes: with nothing waiting, the first screen leaves both exactly as they were
    // (a write costs a round to the browser: docs/dev/benchmarks.md, app-start).
    appTitle ??= document.title || 'AI Workbench';
    const title = total > 0 ? `(${total}) ${appTitle}` : appTitle;
    if (document.title !== title) document.title = title;
    if (!browser) return;
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!icon) return;
    plainIcon ??= icon.getAttribute('href') ?? '';
    const href = total > 0 ? faviconWithCount(total) : plainIcon;
    if (icon.getAttribute('href') !== href) icon.setAttribute('href', href);
  }, [total, browser]);

  const permission = useNotificationPermission();
  // The latest chat titles and opener, read when a call starts waiting: a change of either must not close what is shown.
  const latest = useRef({ chats, open });
  useEffect(() => {
    latest.current = { chats, open };
  }, [chats, open]);
  useEffect(() => {
    if (!browser || permission !== 'granted') return;
    const shown = new Map<string, Notification>();
    const off = api.approvals.onDidChange((change) => {
      if (change.kind === 'resolved') {
        // Decided (here, elsewhere, or timed out): its notification no longer asks for anything.
        for (const resolution of change.resolutions) {
          shown.get(resolution.toolCallId)?.close();
          shown.delete(resolution.toolCallId);
        }
        return;
      }
      if (change.kind !== 'pending' || document.visibilityState !== 'hidden') return;
      for (const approval of change.approvals) {
        const { title, body } = notificationOf(
          approval,
          latest.current.chats.find((chat) => chat.id === approval.chatId)?.title,
        );
        // The tag makes a repeated notice of the same call replace the first, not pile up.
        const notification = new Notification(title, {
          body,
          tag: approval.request.toolCallId,
          requireInteraction: true,
        });
        notification.onclick = () => {
          window.focus();
          latest.current.open(approval);
          notification.close();
        };
        shown.set(approval.request.toolCallId, notification);
      }
    });
    return () => {
      off();
      for (const notification of shown.values()) notification.close();
    };
  }, [api, browser, permission]);
}
