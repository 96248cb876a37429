import { describe, expect, it, vi } from 'vitest';
import { trayMenuTemplate, trayTooltip, type TrayActions } from './tray-menu';

function actions(): { [K in keyof TrayActions]: ReturnType<typeof vi.fn<() => void>> } {
  return {
    openMain: vi.fn<() => void>(),
    openQuickChat: vi.fn<() => void>(),
    openFirstWaiting: vi.fn<() => void>(),
    quit: vi.fn<() => void>(),
  };
}

describe('the tray menu', () => {
  it('offers Open, Quick chat with its shortcut, and Quit while nothing waits', () => {
    const template = trayMenuTemplate({ waiting: 0, quickChatAccelerator: 'CommandOrControl+Shift+Space' }, actions());
    expect(template.map((item) => item.type ?? item.label)).toEqual([
      'Open AI Workbench',
      'Quick chat',
      'separator',
      'Quit AI Workbench',
    ]);
    // The shortcut is a global one, registered elsewhere: the menu only shows it.
    expect(template[1]).toMatchObject({ accelerator: 'CommandOrControl+Shift+Space', registerAccelerator: false });
  });

  it('adds "N requests wait for your answer" while calls wait, and each item does what it says', () => {
    const act = actions();
    const template = trayMenuTemplate({ waiting: 3, quickChatAccelerator: null }, act);
    expect(template.map((item) => item.type ?? item.label)).toEqual([
      'Open AI Workbench',
      'Quick chat',
      'separator',
      '3 requests wait for your answer…',
      'separator',
      'Quit AI Workbench',
    ]);
    expect(template[1]?.accelerator).toBeUndefined();
    const click = (id: string): void => (template.find((item) => item.id === id)?.click as () => void)();
    click('open');
    click('quick-chat');
    click('approvals');
    click('quit');
    expect([act.openMain, act.openQuickChat, act.openFirstWaiting, act.quit].map((fn) => fn.mock.calls.length)).toEqual(
      [1, 1, 1, 1],
    );
    expect(
      trayMenuTemplate({ waiting: 1, quickChatAccelerator: null }, act).find((item) => item.id === 'approvals')?.label,
    ).toBe('1 request waits for your answer…');
  });

  it('says in the tooltip how many calls wait', () => {
    expect(trayTooltip(0)).toBe('AI Workbench');
    expect(trayTooltip(2)).toBe('AI Workbench — 2 requests wait for your answer');
  });
});
