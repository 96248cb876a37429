import type { MenuItemConstructorOptions } from 'electron';
import { waitingLabel } from './approval-attention';

/** What the tray menu's items do; the Electron glue supplies them. */
export interface TrayActions {
  openMain(): void;
  openQuickChat(): void;
  /** Opens the chat of the oldest waiting call, with its card in view. */
  openFirstWaiting(): void;
  quit(): void;
}

export interface TrayState {
  /** Everything that waits for the person, across chats and processes (what-waits.ts). */
  readonly waiting: number;
  /** The quick-chat shortcut as Electron writes it (`CommandOrControl+Shift+Space`), shown beside the item; null when none is registered. */
  readonly quickChatAccelerator: string | null;
}

export const TRAY_TOOLTIP = 'AI Workbench';

/**
 * The tray menu: Open AI Workbench, Quick chat, "N requests wait for your answer" (opens the oldest waiting call, or
 * the app; shown only while something waits), Quit. Plain data, rebuilt whenever the count changes.
 */
export function trayMenuTemplate(state: TrayState, actions: TrayActions): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [
    { id: 'open', label: 'Open AI Workbench', click: () => actions.openMain() },
    {
      id: 'quick-chat',
      label: 'Quick chat',
      ...(state.quickChatAccelerator ? { accelerator: state.quickChatAccelerator, registerAccelerator: false } : {}),
      click: () => actions.openQuickChat(),
    },
  ];
  if (state.waiting > 0) {
    items.push(
      { type: 'separator' },
      { id: 'approvals', label: `${waitingLabel(state.waiting)}…`, click: () => actions.openFirstWaiting() },
    );
  }
  items.push({ type: 'separator' }, { id: 'quit', label: 'Quit AI Workbench', click: () => actions.quit() });
  return items;
}

/** The tray icon's tooltip: the app's name, and how much waits. */
export function trayTooltip(waiting: number): string {
  return waiting > 0 ? `${TRAY_TOOLTIP} — ${waitingLabel(waiting)}` : TRAY_TOOLTIP;
}
