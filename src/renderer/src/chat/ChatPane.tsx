import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { Chat } from '../../../shared/chat';
import type { ChatsStore } from '../state/chats-store';
import { ChatContext, type ChatContextValue } from './chat-context';
import { ApprovalsOffBanner } from './ApprovalsOffBanner';
import { ChatHeader } from './ChatHeader';
import { pendingRequests, phaseOf, type ChatStore } from './chat-store';
import { Composer } from './Composer';
import { LazyMessageList } from './LazyMessageList';
import { EmptyChat } from './EmptyChat';
import { RememberedNotice } from './RememberedNotice';
import { announce, useAnnouncements } from '../state/announcer';
import './chat.css';

export interface ChatPaneProps {
  api: WorkbenchApi;
  chat: Chat;
  chats: Pick<ChatsStore, 'rename'>;
  store: ChatStore;
  trustedServers: ReadonlySet<string>;
}

/** One chat tab: header, the exchanges, the input; Alt+Enter / Alt+Escape answer every waiting call at once. */
export function ChatPane({ api, chat, chats, store, trustedServers }: ChatPaneProps): React.JSX.Element {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const context = useMemo<ChatContextValue>(() => ({ api, store, trustedServers }), [api, store, trustedServers]);
  const phase = phaseOf(state);
  const waiting = pendingRequests(state.timeline);
  const announcement = useAnnouncement(
    waiting.map((request) => ({ id: request.toolCallId, text: `Run ${request.toolName} from ${request.serverName}` })),
  );
  const said = useAnnouncements();
  // A card that disappears because its time ran out says so (the block that replaces it shows "Timed out").
  useEffect(
    () =>
      api.approvals.onDidChange((change) => {
        if (change.kind !== 'resolved' || change.chatId !== chat.id) return;
        const timedOut = change.resolutions.filter((resolution) => resolution.outcome === 'timeout');
        if (timedOut.length > 0)
          announce(
            `Timed out, not run: ${timedOut.map((resolution) => `${resolution.toolName} from ${resolution.serverName}`).join('; ')}.`,
          );
      }),
    [api, chat.id],
  );

  useEffect(() => {
    if (phase !== 'waiting-approval') return;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === 'Enter') {
        event.preventDefault();
        store.decideAll('TOOL_CALL_DECISION_ALLOW_ONCE');
      } else if (event.key === 'Escape') {
        event.preventDefault();
        store.decideAll('TOOL_CALL_DECISION_DENY');
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [phase, store]);

  return (
    <ChatContext.Provider value={context}>
      <section className="chat-view" aria-label={chat.title}>
        <ChatHeader api={api} chat={chat} chats={chats} busy={phase !== 'idle' && phase !== 'loading'} />
        <ApprovalsOffBanner api={api} chatId={chat.id} />
        <div className="chat-body">
          {state.status === 'failed' ? (
            <div className="pane-center">
              <div className="load-failed">
                <p>Could not load this chat: {state.loadError}</p>
                <button type="button" className="button" onClick={() => void store.load()}>
                  Try again
                </button>
              </div>
            </div>
          ) : state.status === 'loading' ? (
            <div className="pane-center muted">Loading…</div>
          ) : state.timeline.rows.length === 0 ? (
            <EmptyChat providerId={chat.providerId} />
          ) : (
            <LazyMessageList store={store} state={state} />
          )}
        </div>
        <RememberedNotice api={api} chatId={chat.id} />
        <Composer store={store} state={state} ready={chat.providerId !== null && chat.model !== null} />
        <div className="visually-hidden" aria-live="assertive" data-testid="approval-announcer">
          {announcement}
        </div>
        <div className="visually-hidden" aria-live="polite" data-testid="chat-announcer">
          {said}
        </div>
      </section>
    </ChatContext.Provider>
  );
}

/** The words for the live region when calls start waiting for the person (each announced once). */
function useAnnouncement(items: readonly { id: string; text: string }[]): string {
  const seen = useRef(new Set<string>());
  const [text, setText] = useState('');
  const key = items.map((item) => item.id).join(',');
  useEffect(() => {
    const fresh = items.filter((item) => !seen.current.has(item.id));
    for (const item of fresh) seen.current.add(item.id);
    if (fresh.length === 0) return;
    setText(
      fresh.length === 1
        ? `Approval needed: ${fresh[0]?.text}.`
        : `${fresh.length} tool calls need your approval: ${fresh.map((item) => item.text).join('; ')}.`,
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the ids
  }, [key]);
  return text;
}
