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
  /** Calls waiting for a person, across chats. */
  readonly waiting: number;
  /** The quick-chat shortcut as Electron writes it (`CommandOrControl+Shift+Space`), shown beside the item; null when none is registered. */
  readonly quickChatAccelerator: string | null;
}

export const TRAY_TOOLTIP = 'AI Workbench';

/**
 * The tray menu: Open AI Workbench, Quick chat, "N approvals waiting" (opens the first; shown only
 * while calls wait), Quit. Plain data, rebuilt whenever the count changes.
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

/** The tray icon's tooltip: the app's name, and how many calls wait. */
export function trayTooltip(waiting: number): string {
  return waiting > 0 ? `${TRAY_TOOLTIP} — ${waitingLabel(waiting)}` : TRAY_TOOLTIP;
}
