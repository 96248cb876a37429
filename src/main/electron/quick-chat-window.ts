import type { BrowserWindowConstructorOptions } from 'electron';
import type { Bounds } from './window-state';
import { APP_ENTRY_URL, mainWindowOptions } from './window-options';

/** The renderer route quick chat shows (the main window's page, another hash route). */
export const QUICK_CHAT_ROUTE = '#/quick';
export const QUICK_CHAT_SIZE = { width: 520, height: 600 } as const;

/** The page quick chat loads: the app's entry (or the dev server's) at `#/quick`. */
export function quickChatUrl(devServerUrl?: string): string {
  const base = devServerUrl ?? APP_ENTRY_URL;
  return `${base.split('#')[0] as string}${QUICK_CHAT_ROUTE}`;
}

/**
 * Quick chat's window: small, always on top, no taskbar entry of its own, not maximisable or
 * full-screen; its page runs with exactly the main window's web preferences (isolation, sandbox, no
 * Node) — the same preload, the same contract. Plain data, checked item by item by the tests.
 */
export function quickChatWindowOptions(
  preloadPath: string,
  platform: NodeJS.Platform,
): BrowserWindowConstructorOptions {
  const main = mainWindowOptions(preloadPath);
  return {
    ...QUICK_CHAT_SIZE,
    minWidth: 380,
    minHeight: 320,
    show: false,
    title: 'Quick chat — AI Workbench',
    backgroundColor: main.backgroundColor,
    alwaysOnTop: true,
    skipTaskbar: true,
    fullscreenable: false,
    maximizable: false,
    minimizable: false,
    resizable: true,
    // On macOS it floats over full-screen apps too, like Spotlight.
    ...(platform === 'darwin' ? { type: 'panel', visibleOnAllWorkspaces: true } : {}),
    webPreferences: { ...main.webPreferences },
  };
}

/**
 * Where quick chat opens: centred horizontally on the work area of the display the pointer is on,
 * a fifth of the way down (where the eye goes), and never larger than that work area.
 */
export function quickChatBounds(workArea: Bounds, size: { width: number; height: number } = QUICK_CHAT_SIZE): Bounds {
  const width = Math.min(size.width, workArea.width);
  const height = Math.min(size.height, workArea.height);
  const x = workArea.x + Math.round((workArea.width - width) / 2);
  const y = workArea.y + Math.min(Math.round(workArea.height / 5), workArea.height - height);
  return { x, y, width, height };
}
