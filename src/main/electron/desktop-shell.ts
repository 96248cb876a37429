import { app, BrowserWindow, globalShortcut, Menu, nativeImage, Notification, screen, Tray } from 'electron';
import { AppChatRequestSchema, type AppChatRequest } from '../../shared/app';
import type { DesktopSettings } from '../../shared/desktop';
import { EVENT_CHANNEL } from '../../shared/ipc';
import { createApprovalTracker, type ApprovalTracker, type ApprovalTrackerChange } from '../approval/approval-tracker';
import { createNotificationDecisions } from '../chat/notification-decisions';
import type { Services } from '../services';
import { createWaitingCount, whatWaits, type WaitingCount } from '../what-waits';
import type { SettingsSection } from '../settings/settings-store';
import type { QuickChatMenuItem } from './app-menu';
import { approvalNotification, badgeBitmap, badgePlan } from './approval-attention';
import { quickChatBounds, quickChatUrl, quickChatWindowOptions } from './quick-chat-window';
import { trayMenuTemplate, trayTooltip } from './tray-menu';

/**
 * The desktop shell around the main window: the count of everything that waits (what-waits.ts, the app's own count)
 * as tray menu and badge, the approval tracker's new calls as notifications, and quick chat behind its global shortcut. Every decision is made by the plain
 * functions it calls (approval-attention, tray-menu, quick-chat-window); this file only applies them.
 */
export interface DesktopShellOptions {
  services: Services;
  desktop: SettingsSection<DesktopSettings>;
  preloadPath: string;
  /** The app's icon (a PNG); the tray shows it at 16 px. */
  iconPath: string;
  devServerUrl: string | undefined;
  /** The main window, created when there is none, restored and focused. */
  showMainWindow(): BrowserWindow;
  /** The main window if there is one (for the Windows overlay). */
  mainWindow(): BrowserWindow | null;
  /** Puts Quick Chat, with the shortcut that is registered now, into the application menu. */
  setAppMenu(quickChat: QuickChatMenuItem): void;
}

export interface DesktopShell {
  readonly tracker: ApprovalTracker;
  /** Everything that waits, held here or by another process: the tray's and the badge's count. */
  readonly waiting: WaitingCount;
  /** Focuses the main window and asks its page to open the chat (and the card). */
  requestChat(request: AppChatRequest): void;
  toggleQuickChat(): void;
  dispose(): void;
}

export function startDesktopShell(options: DesktopShellOptions): DesktopShell {
  const { services, desktop } = options;
  const tracker = createApprovalTracker({
    approvals: services.approvals.pending.onDidChange,
    chats: services.chats.onDidChange,
    initial: () => services.approvals.pending.allWaiting(),
    onError: (error) => console.error(error),
  });
  const waiting = createWaitingCount({
    list: () => whatWaits(services),
    events: services.events,
    onError: (error) => console.error(error),
  });
  let tray: Tray | null = null;
  let quickWindow: BrowserWindow | null = null;
  let registeredShortcut: string | null = null;

  const requestChat = (request: AppChatRequest): void => {
    const payload = AppChatRequestSchema.parse(request);
    const window = options.showMainWindow();
    // Only the main window opens chats on request; quick chat keeps its own conversation.
    const send = (): void => window.webContents.send(EVENT_CHANNEL, { event: 'app.onDidRequestChat', payload });
    if (window.webContents.isLoading()) window.webContents.once('did-finish-load', send);
    else send();
  };

  // Allow once / Deny on the notification go through the card's path (docs/user/desktop.md#desktop-features).
  const notifications = createNotificationDecisions({
    Notification,
    waiting: (chatId) => services.approvals.pending.list(chatId),
    send: (chatId, message, origin) => services.conversations.send(chatId, message, origin),
    open: (request) => requestChat(request),
  });
  const stopClosing = services.approvals.pending.onDidChange((change) => {
    if (change.kind === 'resolved')
      notifications.resolved(change.resolutions.map((resolution) => resolution.toolCallId));
  });

  const serverLabel = (serverName: string): string => {
    try {
      return services.mcpServers.get(serverName).displayName;
    } catch {
      return serverName;
    }
  };

  const toggleQuickChat = (): void => {
    if (quickWindow && !quickWindow.isDestroyed() && quickWindow.isVisible() && quickWindow.isFocused()) {
      quickWindow.hide();
      return;
    }
    const window = quickWindow && !quickWindow.isDestroyed() ? quickWindow : createQuickWindow();
    window.setBounds(quickChatBounds(screen.getDisplayNearestPoint(screen.getCursorScreenPoint()).workArea));
    if (window.webContents.isLoading()) window.once('ready-to-show', () => window.show());
    else {
      window.show();
      window.focus();
    }
  };

  const createQuickWindow = (): BrowserWindow => {
    const window = new BrowserWindow(quickChatWindowOptions(options.preloadPath, process.platform));
    // Escape hides it, as in every quick-entry window; the conversation stays.
    window.webContents.on('before-input-event', (event, input) => {
      if (
        input.type === 'keyDown' &&
        input.key === 'Escape' &&
        !input.alt &&
        !input.control &&
        !input.meta &&
        !input.shift
      ) {
        event.preventDefault();
        window.hide();
      }
    });
    window.on('closed', () => {
      if (quickWindow === window) quickWindow = null;
    });
    void window.loadURL(quickChatUrl(options.devServerUrl));
    quickWindow = window;
    return window;
  };

  const applyShortcut = (accelerator: string | null): void => {
    if (registeredShortcut === accelerator) return;
    if (registeredShortcut) globalShortcut.unregister(registeredShortcut);
    registeredShortcut = null;
    if (!accelerator) return;
    if (globalShortcut.register(accelerator, toggleQuickChat)) registeredShortcut = accelerator;
    else
      console.warn(
        `The quick chat shortcut ${accelerator} is taken by another app; choose another in settings.json (desktop.quickChatShortcut).`,
      );
  };
  const refreshAppMenu = (): void => options.setAppMenu({ open: toggleQuickChat, accelerator: registeredShortcut });

  const refreshTray = (): void => {
    if (!tray) return;
    tray.setToolTip(trayTooltip(waiting.count()));
    tray.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(
          { waiting: waiting.count(), quickChatAccelerator: registeredShortcut },
          {
            openMain: () => void options.showMainWindow(),
            openQuickChat: toggleQuickChat,
            openFirstWaiting: () => {
              // The oldest tool call, wherever it is held; the servers' requests are in the app's inbox.
              const first = whatWaits(services).approvals[0];
              if (first) requestChat({ chatId: first.chatId, toolCallId: first.request.toolCallId });
              else options.showMainWindow();
            },
            quit: () => app.quit(),
          },
        ),
      ),
    );
  };

  const applyTray = (wanted: boolean): void => {
    if (wanted && !tray) {
      tray = new Tray(nativeImage.createFromPath(options.iconPath).resize({ width: 16, height: 16 }));
      // macOS opens the menu on click by itself; elsewhere a click opens the app.
      if (process.platform !== 'darwin') tray.on('click', () => void options.showMainWindow());
      refreshTray();
    } else if (!wanted && tray) {
      tray.destroy();
      tray = null;
    }
  };

  /** The badge shows the count of everything that waits; `added`, the calls that just started waiting here. */
  const applyBadge = (added: number): void => {
    const focused = BrowserWindow.getFocusedWindow() !== null;
    const plan = badgePlan(waiting.count(), process.platform, { added, focused });
    if (plan.kind === 'count') {
      app.setBadgeCount(plan.count);
      if (plan.bounce) app.dock?.bounce('informational');
    } else {
      const overlay =
        plan.description === null ? null : nativeImage.createFromBitmap(badgeBitmap(16), { width: 16, height: 16 });
      options.mainWindow()?.setOverlayIcon(overlay, plan.description ?? '');
    }
  };

  const notify = (change: ApprovalTrackerChange): void => {
    const plan = approvalNotification(
      change.added,
      { focused: BrowserWindow.getFocusedWindow() !== null },
      { enabled: desktop.get().notifyApprovals, supported: Notification.isSupported() },
      serverLabel,
    );
    if (plan) notifications.show(plan);
  };

  const settings = desktop.get();
  applyShortcut(settings.quickChatShortcut);
  refreshAppMenu();
  applyTray(settings.tray);
  applyBadge(0);
  const stopCounting = waiting.onDidChange(() => {
    refreshTray();
    applyBadge(0);
  });
  const stopTracking = tracker.onDidChange((change) => {
    // Counted first, so the badge shows the new call when the dock bounces for it.
    waiting.refresh();
    if (change.added.length > 0) applyBadge(change.added.length);
    notify(change);
  });
  const stopSettings = desktop.onDidChange((next) => {
    applyShortcut(next.quickChatShortcut);
    refreshAppMenu();
    applyTray(next.tray);
    refreshTray();
  });

  return {
    tracker,
    waiting,
    requestChat,
    toggleQuickChat,
    dispose() {
      stopTracking();
      stopCounting();
      waiting.dispose();
      stopSettings();
      tracker.dispose();
      if (registeredShortcut) globalShortcut.unregister(registeredShortcut);
      tray?.destroy();
      tray = null;
      stopClosing();
      notifications.dispose();
    },
  };
}
