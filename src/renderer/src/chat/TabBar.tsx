import { useState } from 'react';
import type { Chat } from '../../../shared/chat';
import { CloseIcon } from '../components/icons';
import { WaitingBadge } from '../components/WaitingBadge';
import type { ChatsStore } from '../state/chats-store';

export interface TabBarProps {
  chats: ChatsStore;
  tabs: readonly Chat[];
  selectedId: string | null;
  /** Calls waiting for a decision, per chat id (state/waiting-store.ts). */
  waiting?: ReadonlyMap<string, number>;
}

/**
 * The open chats as tabs: click to show, × or middle-click to close, drag to reorder (or Alt+Shift+←/→ on a
 * focused tab). The tabs and their order are restored on the next start.
 */
export function TabBar({ chats, tabs, selectedId, waiting }: TabBarProps): React.JSX.Element | null {
  const [dragged, setDragged] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  if (tabs.length === 0) return null;
  return (
    <div className="tab-bar" role="tablist" aria-label="Open chats">
      {tabs.map((chat, index) => {
        const selected = chat.id === selectedId;
        return (
          <div
            key={chat.id}
            className={`tab${selected ? ' is-selected' : ''}${over === chat.id && dragged !== chat.id ? ' is-drop-target' : ''}`}
            draggable
            data-chat-id={chat.id}
            onDragStart={(event) => {
              setDragged(chat.id);
              event.dataTransfer.effectAllowed = 'move';
              event.dataTransfer.setData('text/plain', chat.id);
            }}
            onDragOver={(event) => {
              if (!dragged) return;
              event.preventDefault();
              setOver(chat.id);
            }}
            onDragLeave={() => setOver((current) => (current === chat.id ? null : current))}
            onDrop={(event) => {
              event.preventDefault();
              if (dragged) chats.moveTab(dragged, index);
              setDragged(null);
              setOver(null);
            }}
            onDragEnd={() => {
              setDragged(null);
              setOver(null);
            }}
            onAuxClick={(event) => {
              if (event.button === 1) chats.closeTab(chat.id);
            }}
          >
            <button
              type="button"
              role="tab"
              className="tab-title"
              aria-selected={selected}
              title={chat.title}
              tabIndex={selected ? 0 : -1}
              aria-keyshortcuts="Delete"
              onClick={() => chats.select(chat.id)}
              onKeyDown={(event) => {
                if (event.altKey && event.shiftKey && (event.key === 'ArrowLeft' || event.key === 'ArrowRight')) {
                  event.preventDefault();
                  chats.moveTab(chat.id, index + (event.key === 'ArrowLeft' ? -1 : 1));
                  return;
                }
                // The × is for the mouse; from the keyboard, Delete closes the focused tab and the next one takes the focus.
                if (event.key === 'Delete') {
                  event.preventDefault();
                  const next = tabs[index + 1] ?? tabs[index - 1];
                  chats.closeTab(chat.id);
                  const bar = event.currentTarget.closest('.tab-bar');
                  if (next)
                    queueMicrotask(() =>
                      bar?.querySelector<HTMLButtonElement>(`[data-chat-id="${next.id}"] .tab-title`)?.focus(),
                    );
                  return;
                }
                if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
                  const next = tabs[(index + (event.key === 'ArrowLeft' ? tabs.length - 1 : 1)) % tabs.length];
                  if (next) {
                    chats.select(next.id);
                    const bar = event.currentTarget.closest('.tab-bar');
                    queueMicrotask(() =>
                      bar?.querySelector<HTMLButtonElement>(`[data-chat-id="${next.id}"] .tab-title`)?.focus(),
                    );
                  }
                }
              }}
            >
              <span className="tab-title-text">{chat.title}</span>
              <WaitingBadge count={waiting?.get(chat.id) ?? 0} />
            </button>
            {/* Only tabs belong in a tablist: the × is out of the tab order and the accessibility tree (Delete closes a tab). */}
            <button
              type="button"
              className="tab-close"
              tabIndex={-1}
              aria-hidden="true"
              title="Close tab (Delete, or middle-click)"
              onClick={() => chats.closeTab(chat.id)}
            >
              <CloseIcon size={12} />
            </button>
          </div>
        );
      })}
    </div>
  );
}
