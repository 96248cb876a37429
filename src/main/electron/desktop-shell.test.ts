// The desktop shell's glue against fake Electron objects (no Electron binary here): what it asks Electron to
// do when calls start waiting, when menus are clicked and when the desktop settings change. The decisions
// themselves are tested in approval-attention, tray-menu and quick-chat-window.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { EVENT_CHANNEL } from '../../shared/ipc';
import { makeTool, recordingAuditLog, requestFor } from '../approval/testing/fixtures';
import { waitingTotal } from '../../shared/waiting';
import { createServices, type Services } from '../services';
import { whatWaits } from '../what-waits';
import type { QuickChatMenuItem } from './app-menu';
import { openDesktopSettings } from './desktop-settings';
import { startDesktopShell, type DesktopShell } from './desktop-shell';

vi.mock('electron', () => {
  class FakeWebContents {
    readonly sent: [string, unknown][] = [];
    readonly handlers = new Map<string, (...args: unknown[]) => void>();
    isLoading(): boolean {
      return false;
    }
    on(event: string, handler: (...args: unknown[]) => void): void {
      this.handlers.set(event, handler);
    }
    once(event: string, handler: (...args: unknown[]) => void): void {
      this.handlers.set(event, handler);
    }
    send(channel: string, payload: unknown): void {
      this.sent.push([channel, payload]);
    }
  }
  class FakeBrowserWindow {
    static all: FakeBrowserWindow[] = [];
    static focused: FakeBrowserWindow | null = null;
    readonly webContents = new FakeWebContents();
    url = '';
    visible = false;
    bounds: unknown = null;
    overlay: unknown[] = [];
    constructor(readonly options: unknown) {
      FakeBrowserWindow.all.push(this);
    }
    static getFocusedWindow(): FakeBrowserWindow | null {
      return FakeBrowserWindow.focused;
    }
    loadURL(url: string): Promise<void> {
      this.url = url;
      return Promise.resolve();
    }
    setBounds(bounds: unknown): void {
      this.bounds = bounds;
    }
    isDestroyed(): boolean {
      return false;
    }
    isVisible(): boolean {
      return this.visible;
    }
    isFocused(): boolean {
      return FakeBrowserWindow.focused === this;
    }
    isMinimized(): boolean {
      return false;
    }
    restore(): void {}
    show(): void {
      this.visible = true;
    }
    focus(): void {
      FakeBrowserWindow.focused = this;
    }
    hide(): void {
      this.visible = false;
      if (FakeBrowserWindow.focused === this) FakeBrowserWindow.focused = null;
    }
    once(event: string, handler: () => void): void {
      if (event === 'ready-to-show') handler();
    }
    on(): void {}
    setOverlayIcon(image: unknown, description: string): void {
      this.overlay.push([image, description]);
    }
  }
  class FakeNotification {
    static shown: FakeNotification[] = [];
    readonly handlers = new Map<string, () => void>();
    constructor(readonly options: { title: string; body: string }) {}
    static isSupported(): boolean {
      return true;
    }
    on(event: string, handler: () => void): void {
      this.handlers.set(event, handler);
    }
    show(): void {
      FakeNotification.shown.push(this);
    }
    close(): void {}
  }
  class FakeTray {
    static all: FakeTray[] = [];
    tooltip = '';
    menu: { template: MenuItemConstructorOptions[] } | null = null;
    destroyed = false;
    constructor(readonly image: unknown) {
      FakeTray.all.push(this);
    }
    setToolTip(text: string): void {
      this.tooltip = text;
    }
    setContextMenu(menu: { template: MenuItemConstructorOptions[] }): void {
      this.menu = menu;
    }
    on(): void {}
    destroy(): void {
      this.destroyed = true;
    }
  }
  return {
    app: { setBadgeCount: vi.fn(), quit: vi.fn(), dock: undefined },
    BrowserWindow: FakeBrowserWindow,
    Notification: FakeNotification,
    Tray: FakeTray,
    Menu: { buildFromTemplate: (template: MenuItemConstructorOptions[]) => ({ template }) },
    globalShortcut: { register: vi.fn(() => true), unregister: vi.fn() },
    nativeImage: {
      createFromPath: () => ({ resize: () => ({ kind: 'tray-icon' }) }),
      createFromBitmap: () => ({ kind: 'overlay' }),
    },
    screen: {
      getCursorScreenPoint: () => ({ x: 10, y: 10 }),
      getDisplayNearestPoint: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
    },
  };
});

interface FakeWindow {
  options: unknown;
  url: string;
  visible: boolean;
  bounds: unknown;
  webContents: { sent: [string, unknown][]; handlers: Map<string, (...args: unknown[]) => void> };
  focus(): void;
}
interface FakeElectron {
  app: { setBadgeCount: ReturnType<typeof vi.fn> };
  BrowserWindow: { new (options: unknown): FakeWindow; all: FakeWindow[]; focused: FakeWindow | null };
  Notification: { shown: { options: { title: string; body: string }; handlers: Map<string, () => void> }[] };
  Tray: { all: { tooltip: string; menu: { template: MenuItemConstructorOptions[] } | null; destroyed: boolean }[] };
  globalShortcut: { register: ReturnType<typeof vi.fn>; unregister: ReturnType<typeof vi.fn> };
}
const electron = (await import('electron')) as unknown as FakeElectron;

const writeFile = makeTool('Files', 'write_file');
let dir: string;
let services: Services;
let shell: DesktopShell;
let main: FakeWindow;
let menus: QuickChatMenuItem[];
let desktop: ReturnType<typeof openDesktopSettings>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-shell-'));
  services = createServices({
    dataDir: dir,
    host: 'electron',
    version: '0',
    managedPolicyFile: null,
    audit: recordingAuditLog(),
  });
  electron.BrowserWindow.all.length = 0;
  electron.BrowserWindow.focused = null;
  electron.Notification.shown.length = 0;
  electron.Tray.all.length = 0;
  vi.clearAllMocks();
  electron.globalShortcut.register.mockImplementation(() => true);
  main = new electron.BrowserWindow({ main: true });
  menus = [];
  desktop = openDesktopSettings(services.settings);
  shell = startDesktopShell({
    services,
    desktop,
    preloadPath: '/app/preload.cjs',
    iconPath: '/app/icon.png',
    devServerUrl: undefined,
    showMainWindow: () => {
      main.visible = true;
      main.focus();
      return main as never;
    },
    mainWindow: () => main as never,
    setAppMenu: (quickChat) => menus.push(quickChat),
  });
});
afterEach(() => {
  shell.dispose();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const tray = () => electron.Tray.all[0];
const trayLabels = (): (string | undefined)[] => tray()?.menu?.template.map((item) => item.type ?? item.label) ?? [];
const clickTray = (id: string): void => (tray()?.menu?.template.find((item) => item.id === id)?.click as () => void)();
const quickWindows = (): FakeWindow[] => electron.BrowserWindow.all.filter((window) => window.url.endsWith('#/quick'));

describe('the desktop shell', () => {
  it('starts with the quick chat shortcut registered and in the menu, and a tray with nothing waiting', () => {
    expect(electron.globalShortcut.register).toHaveBeenCalledWith('CommandOrControl+Shift+Space', expect.any(Function));
    expect(menus.at(-1)?.accelerator).toBe('CommandOrControl+Shift+Space');
    expect(tray()?.tooltip).toBe('AI Workbench');
    expect(trayLabels()).toEqual(['Open AI Workbench', 'Quick chat', 'separator', 'Quit AI Workbench']);
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(0);
  });

  it('notifies about a call that waits while no window has the focus, and its click opens that card in the main window', () => {
    const chat = services.chats.create().id;
    services.approvals.pending.add(chat, 'e', [requestFor(writeFile, 'call-1')]);
    expect(electron.Notification.shown.map((notification) => notification.options.title)).toEqual([
      'Files wants to run write_file',
    ]);
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(1);
    expect(tray()?.tooltip).toBe('AI Workbench — 1 request waits for your answer');
    expect(trayLabels()).toContain('1 request waits for your answer…');

    electron.Notification.shown[0]?.handlers.get('click')?.();
    expect(main.visible).toBe(true);
    expect(electron.BrowserWindow.focused).toBe(main);
    expect(main.webContents.sent).toEqual([
      [EVENT_CHANNEL, { event: 'app.onDidRequestChat', payload: { chatId: chat, toolCallId: 'call-1' } }],
    ]);
  });

  it('does not notify while a window of the app has the focus, but still counts', () => {
    main.focus();
    services.approvals.pending.add(services.chats.create().id, 'e', [requestFor(writeFile, 'seen')]);
    expect(electron.Notification.shown).toEqual([]);
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(1);
  });

  it('opens the oldest waiting call from the tray, and clears the badge once it is decided', () => {
    const first = services.chats.create().id;
    const second = services.chats.create().id;
    services.approvals.pending.add(first, 'e', [requestFor(writeFile, 'old')]);
    services.approvals.pending.add(second, 'e', [requestFor(writeFile, 'new')]);
    expect(trayLabels()).toContain('2 requests wait for your answer…');
    clickTray('approvals');
    expect(main.webContents.sent.at(-1)).toEqual([
      EVENT_CHANNEL,
      { event: 'app.onDidRequestChat', payload: { chatId: first, toolCallId: 'old' } },
    ]);
    services.approvals.pending.cancelAll(first);
    services.approvals.pending.submit(second, [{ toolCallId: 'new', decision: 'TOOL_CALL_DECISION_DENY' }]);
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(0);
    expect(trayLabels()).not.toContain('1 request waits for your answer…');
  });

  it('counts a server\'s request with the tool calls, as the app\'s own count does (docs/user/approvals.md "What waits")', () => {
    services.approvals.pending.add(services.chats.create().id, 'e', [requestFor(writeFile, 'call')]);
    const widening = services.sandboxWidenings.request({ name: 'Files', grant: { kind: 'read', path: '/opt/notes' } });
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(2);
    expect(tray()?.tooltip).toBe('AI Workbench — 2 requests wait for your answer');
    expect(shell.waiting.count()).toBe(waitingTotal(whatWaits(services)));
    services.sandboxWidenings.answer(widening.id, { action: 'deny' });
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(1);
  });

  it('counts a tool call another process holds (a `workbench chat`), which sends no event here', async () => {
    const terminal = createServices({
      dataDir: dir,
      host: 'cli',
      command: 'chat',
      version: '0',
      managedPolicyFile: null,
      audit: recordingAuditLog(),
    });
    try {
      const chat = terminal.chats.create().id;
      terminal.approvals.pending.add(chat, 'e', [requestFor(writeFile, 'in-the-terminal')]);
      expect(electron.Notification.shown).toEqual([]);
      await vi.waitFor(() => expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(1), { timeout: 10_000 });
      expect(trayLabels()).toContain('1 request waits for your answer…');
      clickTray('approvals');
      expect(main.webContents.sent.at(-1)).toMatchObject([
        EVENT_CHANNEL,
        { event: 'app.onDidRequestChat', payload: { toolCallId: 'in-the-terminal' } },
      ]);
      terminal.approvals.pending.cancelAll(chat);
      await vi.waitFor(() => expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(0), { timeout: 10_000 });
    } finally {
      terminal.close();
    }
  });

  it('opens quick chat on #/quick with its window options, hides it when toggled while in front, and on Escape', () => {
    clickTray('quick-chat');
    const [quick] = quickWindows();
    expect(quick?.url).toBe('app://workbench/index.html#/quick');
    expect(quick?.options).toMatchObject({
      alwaysOnTop: true,
      skipTaskbar: true,
      webPreferences: { preload: '/app/preload.cjs', sandbox: true, contextIsolation: true },
    });
    expect(quick?.bounds).toEqual({ x: 700, y: 216, width: 520, height: 600 });
    expect(quick?.visible).toBe(true);
    shell.toggleQuickChat();
    expect(quick?.visible).toBe(false);
    shell.toggleQuickChat();
    expect(quickWindows()).toHaveLength(1);
    expect(quick?.visible).toBe(true);
    const prevented: string[] = [];
    quick?.webContents.handlers.get('before-input-event')?.(
      { preventDefault: () => prevented.push('yes') },
      { type: 'keyDown', key: 'Escape' },
    );
    expect(prevented).toEqual(['yes']);
    expect(quick?.visible).toBe(false);
  });

  it('follows the desktop settings: another shortcut, none, no tray, no notifications', () => {
    desktop.update((current) => ({ ...current, quickChatShortcut: 'Alt+Shift+K' }));
    expect(electron.globalShortcut.unregister).toHaveBeenCalledWith('CommandOrControl+Shift+Space');
    expect(electron.globalShortcut.register).toHaveBeenLastCalledWith('Alt+Shift+K', expect.any(Function));
    expect(menus.at(-1)?.accelerator).toBe('Alt+Shift+K');
    expect(tray()?.menu?.template.find((item) => item.id === 'quick-chat')?.accelerator).toBe('Alt+Shift+K');
    desktop.update((current) => ({ ...current, quickChatShortcut: null, tray: false, notifyApprovals: false }));
    expect(electron.globalShortcut.unregister).toHaveBeenLastCalledWith('Alt+Shift+K');
    expect(menus.at(-1)?.accelerator).toBeNull();
    expect(tray()?.destroyed).toBe(true);
    services.approvals.pending.add(services.chats.create().id, 'e', [requestFor(writeFile, 'quiet')]);
    expect(electron.Notification.shown).toEqual([]);
    expect(electron.app.setBadgeCount).toHaveBeenLastCalledWith(1);
    desktop.update((current) => ({ ...current, tray: true }));
    expect(electron.Tray.all).toHaveLength(2);
    expect(electron.Tray.all[1]?.tooltip).toBe('AI Workbench — 1 request waits for your answer');
  });

  it('says so when another app owns the shortcut, and leaves it out of the menu', () => {
    shell.dispose();
    electron.globalShortcut.register.mockImplementation(() => false);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    menus = [];
    shell = startDesktopShell({
      services,
      desktop: openDesktopSettings(services.settings),
      preloadPath: '/p',
      iconPath: '/i.png',
      devServerUrl: undefined,
      showMainWindow: () => main as never,
      mainWindow: () => main as never,
      setAppMenu: (quickChat) => menus.push(quickChat),
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('CommandOrControl+Shift+Space is taken by another app'));
    expect(menus.at(-1)?.accelerator).toBeNull();
    warn.mockRestore();
  });

  it('lets go of the shortcut and the tray when disposed', () => {
    shell.dispose();
    expect(electron.globalShortcut.unregister).toHaveBeenCalledWith('CommandOrControl+Shift+Space');
    expect(tray()?.destroyed).toBe(true);
    services.approvals.pending.add(services.chats.create().id, 'e', [requestFor(writeFile, 'after')]);
    expect(electron.Notification.shown).toEqual([]);
  });
});
