import { useEffect, useRef, useState } from 'react';
import type { ChatsState, ChatsStore } from '../state/chats-store';
import { ChatListItem } from './ChatListItem';
import { CloseIcon, ChartIcon, GearIcon, InboxIcon, PlusIcon, SearchIcon, ShieldIcon } from './icons';
import { inboxLabel } from '../../../shared/waiting';

export interface SidebarProps {
  store: ChatsStore;
  state: ChatsState;
  /** False while browser mode has lost its connection: nothing can be created then. */
  connected: boolean;
  /** Opens the settings (providers, servers, approvals, audit). */
  onOpenSettings?: () => void;
  /** Opens the approval insights (docs/user/insights.md). */
  onOpenInsights?: () => void;
  /** Calls waiting for a decision, per chat id (state/waiting-store.ts). */
  waiting?: ReadonlyMap<string, number>;
  /** Opens the inbox of everything waiting (docs/user/approvals.md, "One inbox"). */
  onOpenInbox?: () => void;
  /** Everything that waits on the person, held here or elsewhere (state/waiting-store.ts): the inbox button's count. */
  waitingTotal?: number;
}

/** No chat item is shorter (34 px at the default font size): the window's height over it fills the list. */
const ITEM_MIN_PX = 28;
/** About 600 elements: a few tens of ms to render on a slow machine, so a key pressed meanwhile waits no longer. */
const RENDER_STEP = 50;

/**
 * How many items of a long list to render now: as many as the window can show at once, then RENDER_STEP more each
 * time the browser is idle, so that a thousand chats (about 10,000 elements) neither hold back the first screen nor
 * keep the message box from taking keys after it (docs/dev/benchmarks.md, app-start). Every item is in the list
 * within a second or so.
 */
function useRenderedCount(total: number): number {
  const [count, setCount] = useState(() => Math.ceil(window.innerHeight / ITEM_MIN_PX));
  useEffect(() => {
    if (count >= total) return;
    const idle = requestIdleCallback(() => setCount((current) => current + RENDER_STEP), { timeout: 500 });
    return () => cancelIdleCallback(idle);
  }, [count, total]);
  return Math.min(count, total);
}

export function Sidebar({
  store,
  state,
  connected,
  onOpenSettings,
  onOpenInsights,
  waiting,
  onOpenInbox,
  waitingTotal = 0,
}: SidebarProps): React.JSX.Element {
  const [query, setQuery] = useState('');
  const searchInput = useRef<HTMLInputElement>(null);
  const needle = query.trim().toLocaleLowerCase();
  const visible = needle ? state.chats.filter((chat) => chat.title.toLocaleLowerCase().includes(needle)) : state.chats;
  const rendered = useRenderedCount(visible.length);

  return (
    <nav className="sidebar" aria-label="Chats">
      <header className="sidebar-header">
        <div className="brand">
          <span className="brand-mark">
            <ShieldIcon size={18} />
          </span>
          <span className="brand-name">AI Workbench</span>
        </div>
        <button
          type="button"
          className="button button-primary new-chat"
          data-testid="new-chat"
          onClick={() => void store.create()}
          disabled={state.status !== 'ready' || !connected}
        >
          <PlusIcon />
          New chat
        </button>
      </header>
      {state.chats.length > 0 && (
        <div className="search">
          <label className="search-field">
            <SearchIcon size={14} />
            <input
              ref={searchInput}
              type="search"
              placeholder="Search chats"
              aria-label="Search chats"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape' && query) {
                  event.preventDefault();
                  setQuery('');
                }
              }}
            />
          </label>
          {query && (
            <button
              type="button"
              className="icon-button search-clear"
              aria-label="Clear search"
              title="Clear search (Esc)"
              onClick={() => {
                setQuery('');
                searchInput.current?.focus();
              }}
            >
              <CloseIcon size={12} />
            </button>
          )}
        </div>
      )}
      <div className="chat-list-scroll">
        <ul className="chat-list" aria-label="Chat list">
          {visible.slice(0, rendered).map((chat) => (
            <ChatListItem
              key={chat.id}
              chat={chat}
              selected={chat.id === state.selectedId}
              store={store}
              waiting={waiting?.get(chat.id) ?? 0}
            />
          ))}
        </ul>
        {state.status === 'ready' && state.chats.length === 0 && <p className="sidebar-empty muted">No chats yet.</p>}
        {needle && state.chats.length > 0 && visible.length === 0 && (
          <p className="sidebar-empty muted">No chat matches “{query.trim()}”.</p>
        )}
      </div>
      {onOpenSettings && (
        <footer className="sidebar-footer">
          {onOpenInbox && (
            <button
              type="button"
              className="sidebar-settings"
              data-testid="open-inbox"
              aria-keyshortcuts="Control+Shift+A Meta+Shift+A"
              onClick={onOpenInbox}
            >
              <InboxIcon size={16} />
              Waiting for you
              {waitingTotal > 0 && (
                <span className="waiting-badge" data-testid="inbox-count">
                  <span aria-hidden="true">{waitingTotal}</span>
                  <span className="visually-hidden">{inboxLabel(waitingTotal)}</span>
                </span>
              )}
            </button>
          )}
          {onOpenInsights && (
            <button type="button" className="sidebar-settings" data-testid="open-insights" onClick={onOpenInsights}>
              <ChartIcon size={16} />
              Insights
            </button>
          )}
          <button type="button" className="sidebar-settings" data-testid="open-settings" onClick={onOpenSettings}>
            <GearIcon size={16} />
            Settings
          </button>
        </footer>
      )}
    </nav>
  );
}
