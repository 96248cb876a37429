// Imports only plain modules (type-only imports of 'electron'): runs in plain Node.
import { describe, expect, it } from 'vitest';
import { quickChatBounds, quickChatUrl, quickChatWindowOptions } from './quick-chat-window';
import { APP_ENTRY_URL, mainWindowOptions } from './window-options';

describe('the quick chat window', () => {
  const options = quickChatWindowOptions('/app/out/preload/index.cjs', 'linux');

  it('runs its page exactly as locked down as the main window', () => {
    expect(options.webPreferences).toEqual(mainWindowOptions('/app/out/preload/index.cjs').webPreferences);
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    });
  });

  it('is small, always on top, without a taskbar entry, shown only when ready', () => {
    expect(options).toMatchObject({
      width: 520,
      height: 600,
      alwaysOnTop: true,
      skipTaskbar: true,
      show: false,
      fullscreenable: false,
      maximizable: false,
      minimizable: false,
      title: 'Quick chat — AI Workbench',
    });
    expect(options.type).toBeUndefined();
  });

  it('floats over full-screen apps on macOS as a panel', () => {
    expect(quickChatWindowOptions('/p', 'darwin')).toMatchObject({ type: 'panel', visibleOnAllWorkspaces: true });
  });

  it("loads the renderer's #/quick route from the app scheme, or the dev server", () => {
    expect(quickChatUrl()).toBe(`${APP_ENTRY_URL}#/quick`);
    expect(quickChatUrl()).toBe('app://workbench/index.html#/quick');
    expect(quickChatUrl('http://localhost:5173/')).toBe('http://localhost:5173/#/quick');
    expect(quickChatUrl('http://localhost:5173/#/chats')).toBe('http://localhost:5173/#/quick');
  });

  it('opens centred, a fifth down the display the pointer is on, and fits a small one', () => {
    expect(quickChatBounds({ x: 0, y: 25, width: 1920, height: 1055 })).toEqual({
      x: 700,
      y: 236,
      width: 520,
      height: 600,
    });
    expect(quickChatBounds({ x: -1280, y: 0, width: 1280, height: 800 })).toEqual({
      x: -900,
      y: 160,
      width: 520,
      height: 600,
    });
    expect(quickChatBounds({ x: 0, y: 0, width: 400, height: 500 })).toEqual({ x: 0, y: 0, width: 400, height: 500 });
  });
});
