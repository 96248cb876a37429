import type { MenuItemConstructorOptions } from 'electron';

/** Quick chat in the View menu, once the desktop shell runs: the shortcut is a global one, shown here, registered there. */
export interface QuickChatMenuItem {
  open(): void;
  accelerator: string | null;
}

/** The application menu with the usual roles and shortcuts; plain data so it can be checked without Electron. */
export function appMenuTemplate(
  platform: NodeJS.Platform,
  appName: string,
  quickChat?: QuickChatMenuItem,
): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const appMenu: MenuItemConstructorOptions = {
    label: appName,
    submenu: [
      { role: 'about' },
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit' },
    ],
  };
  return [
    ...(isMac ? [appMenu] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...(quickChat
          ? [
              {
                id: 'quick-chat',
                label: 'Quick Chat',
                ...(quickChat.accelerator ? { accelerator: quickChat.accelerator, registerAccelerator: false } : {}),
                click: () => quickChat.open(),
              },
              { type: 'separator' as const },
            ]
          : []),
        { role: 'reload' },
        { role: 'forceReload' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: isMac ? [] : [{ role: 'about' }] },
  ];
}

/** The About panel: the app's version and the versions of what it runs on. */
export function aboutPanelOptions(
  appName: string,
  version: string,
  versions: NodeJS.ProcessVersions,
): Record<string, string> {
  return {
    applicationName: appName,
    applicationVersion: version,
    version: `Electron ${versions.electron ?? '?'} · Chromium ${versions.chrome ?? '?'} · Node ${versions.node}`,
    copyright: 'MIT License',
  };
}
