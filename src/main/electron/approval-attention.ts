import type { PendingApproval } from '../../shared/approval';
import { inboxLabel } from '../../shared/waiting';

/**
 * How the desktop app draws a person's attention to calls waiting for them: which OS notification to
 * show, and the badge. Plain functions of plain data; src/main/electron/attention.ts applies them.
 */

/** What the app knows of its windows when calls start waiting. */
export interface WindowAttention {
  /** One of the app's windows (the main window or quick chat) has the focus: the person sees the card. */
  readonly focused: boolean;
}

export interface ApprovalNotification {
  readonly title: string;
  readonly body: string;
  /** What a click opens: the chat, with this card in view. */
  readonly chatId: string;
  readonly toolCallId: string;
}

export interface NotificationSettings {
  /** The `desktop.notifyApprovals` setting. */
  readonly enabled: boolean;
  /** Electron's `Notification.isSupported()`. */
  readonly supported: boolean;
}

/**
 * One notification for the calls that just started waiting — "Files wants to run write_file" — when
 * no window of the app has the focus; none when the person is looking at the app, when notifications
 * are off or unsupported, or when nothing new waits. Several calls at once make one notification
 * about the first, which says how many more wait.
 */
export function approvalNotification(
  added: readonly PendingApproval[],
  window: WindowAttention,
  settings: NotificationSettings,
  serverLabel: (serverName: string) => string = (name) => name,
): ApprovalNotification | null {
  const first = added[0];
  if (!first || window.focused || !settings.enabled || !settings.supported) return null;
  const others = added.length - 1;
  return {
    title: `${serverLabel(first.request.serverName)} wants to run ${first.request.toolName}`,
    body:
      others === 0
        ? 'Review the call in AI Workbench: it runs only if you allow it.'
        : `${others === 1 ? 'One more call waits' : `${others} more calls wait`} for your approval too. Nothing runs until you decide.`,
    chatId: first.chatId,
    toolCallId: first.request.toolCallId,
  };
}

/**
 * The words for the count of everything that waits (the app's own, `inboxLabel`): the tray item, the tooltip, the
 * Windows overlay's description.
 */
export const waitingLabel = inboxLabel;

/**
 * The badge for `count` things that wait (tool calls and servers' requests, docs/user/approvals.md "What waits") on
 * this OS: a number on the macOS dock icon and on Linux launchers that show one (Unity, KDE, via app.setBadgeCount); on Windows, an overlay on the taskbar
 * button (setOverlayIcon), cleared at 0. `bounce` asks the macOS dock to bounce once, when new calls
 * started waiting while the app was not in front.
 */
export type BadgePlan =
  | { readonly kind: 'count'; readonly count: number; readonly bounce: boolean }
  | { readonly kind: 'overlay'; readonly description: string | null };

export function badgePlan(
  count: number,
  platform: NodeJS.Platform,
  attention: { added: number; focused: boolean },
): BadgePlan {
  if (platform === 'win32') return { kind: 'overlay', description: count > 0 ? waitingLabel(count) : null };
  return { kind: 'count', count, bounce: platform === 'darwin' && attention.added > 0 && !attention.focused };
}

/**
 * The Windows overlay: a red disc, as BGRA pixels for `nativeImage.createFromBitmap` (no image file
 * to ship or to find inside the asar). Edge pixels are blended, so the disc looks round at 16 px.
 */
export function badgeBitmap(size = 16): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const centre = (size - 1) / 2;
  const radius = size / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x - centre, y - centre);
      const coverage = Math.max(0, Math.min(1, radius - distance));
      const offset = (y * size + x) * 4;
      // Premultiplied BGRA: #d93025 scaled by coverage.
      pixels[offset] = Math.round(0x25 * coverage);
      pixels[offset + 1] = Math.round(0x30 * coverage);
      pixels[offset + 2] = Math.round(0xd9 * coverage);
      pixels[offset + 3] = Math.round(255 * coverage);
    }
  }
  return pixels;
}
