import { describe, expect, it } from 'vitest';
import { aboutPanelOptions, appMenuTemplate } from './app-menu';

const roles = (template: ReturnType<typeof appMenuTemplate>): string[] =>
  template.flatMap((item) => [
    item.role ?? item.label ?? '',
    ...(Array.isArray(item.submenu) ? item.submenu.map((sub) => sub.role ?? sub.type ?? '') : []),
  ]);

describe('app menu', () => {
  it('has the app menu with About and Quit on macOS', () => {
    const template = appMenuTemplate('darwin', 'AI Workbench');
    expect(template[0]?.label).toBe('AI Workbench');
    expect(roles(template)).toEqual(
      expect.arrayContaining([
        'about',
        'quit',
        'hide',
        'editMenu',
        'windowMenu',
        'reload',
        'zoomIn',
        'togglefullscreen',
      ]),
    );
  });

  it('has File, Edit, View, Window and Help elsewhere, with About under Help', () => {
    const template = appMenuTemplate('linux', 'AI Workbench');
    expect(template.map((item) => item.role ?? item.label)).toEqual([
      'fileMenu',
      'editMenu',
      'View',
      'windowMenu',
      'help',
    ]);
    expect(roles(template)).toContain('about');
  });

  it('offers Quick Chat in the View menu once the desktop shell runs, showing its global shortcut', () => {
    const opened: string[] = [];
    const template = appMenuTemplate('linux', 'AI Workbench', {
      open: () => opened.push('quick'),
      accelerator: 'CommandOrControl+Shift+Space',
    });
    const view = template.find((item) => item.label === 'View');
    const item = Array.isArray(view?.submenu) ? view.submenu[0] : undefined;
    expect(item).toMatchObject({
      id: 'quick-chat',
      label: 'Quick Chat',
      accelerator: 'CommandOrControl+Shift+Space',
      registerAccelerator: false,
    });
    (item?.click as () => void)();
    expect(opened).toEqual(['quick']);
    const withoutShortcut = appMenuTemplate('linux', 'AI Workbench', { open: () => {}, accelerator: null }).find(
      (entry) => entry.label === 'View',
    );
    expect(Array.isArray(withoutShortcut?.submenu) && withoutShortcut.submenu[0]?.accelerator).toBeUndefined();
    const before = appMenuTemplate('linux', 'AI Workbench').find((entry) => entry.label === 'View');
    expect(Array.isArray(before?.submenu) && before.submenu[0]).toEqual({ role: 'reload' });
  });

  it('shows the versions in the About panel', () => {
    const about = aboutPanelOptions('AI Workbench', '0.1.0', {
      ...process.versions,
      electron: '45.4.1',
      chrome: '142.0.0.0',
    });
    expect(about.applicationVersion).toBe('0.1.0');
    expect(about.version).toBe(`Electron 45.4.1 · Chromium 142.0.0.0 · Node ${process.versions.node}`);
  });
});
