import { lazy, Suspense, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { PendingApproval } from '../../shared/approval';
import type { WorkbenchApi } from '../../shared/api';
import type { BrowserBridge } from './bridge/browser-bridge';
import { useConnectionState } from './bridge/use-connection-state';
import { ChatPane } from './chat/ChatPane';
import { ChatStores } from './chat/chat-store';
import { preloadMessageList } from './chat/LazyMessageList';
import { preloadMarkdown } from './chat/markdown/LazyMarkdown';
import { TabBar } from './chat/TabBar';
import { useTrustedServers } from './chat/use-trusted-servers';
import { ConnectionBanner } from './components/ConnectionBanner';
import { SettingsFileBanner } from './components/SettingsFileBanner';
import { ErrorToast } from './components/ErrorToast';
import { NotificationOffer } from './components/NotificationOffer';
import { Sidebar } from './components/Sidebar';
import { ServerRequestsTray } from './chat/server-request-cards/ServerRequests';
import { Welcome } from './components/Welcome';
import { ChatsStore } from './state/chats-store';
import { rememberedStore } from './state/remembered';
import { useWaitingAttention } from './state/attention';
import { WaitingStore } from './state/waiting-store';
import { InboxDialog } from './inbox/InboxDialog';

// Its styles stay on the first screen: the sidebar's Settings button and shared classes (badges, notices) use them.
import './settings/settings.css';

// Settings load when first opened: the first screen does without them (docs/dev/benchmarks.md, renderer-first-load).
const SettingsDialog = lazy(() =>
  import('./settings/SettingsDialog').then((module) => ({ default: module.SettingsDialog })),
); // settings (ui-settings)

export interface AppProps {
  api: WorkbenchApi;
  /** Present in browser mode only: the WebSocket whose state the banner shows. */
  bridge?: BrowserBridge | undefined;
}

export function App({ api, bridge }: AppProps): React.JSX.Element {
  const [store] = useState(() => new ChatsStore(api));
  const [chatStores] = useState(() => new ChatStores(api));
  const [waitingStore] = useState(() => new WaitingStore(api));
  const waiting = useSyncExternalStore(waitingStore.subscribe, waitingStore.getSnapshot);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const connection = useConnectionState(bridge);
  const trustedServers = useTrustedServers(api);
  const [settingsOpen, setSettingsOpen] = useState<false | 'providers' | 'approvals' | 'insights'>(false); // settings (ui-settings)
  // "Show in Settings" after a card remembered something (docs/user/approvals.md "Remember from the card").
  useEffect(() => rememberedStore.onDidRequestOpenSettings(() => setSettingsOpen('approvals')), []);

  useEffect(() => store.follow(), [store]);
  useEffect(() => waitingStore.follow(), [waitingStore]);
  // The window's title counts everything that waits (the sidebar's count); a browser tab's favicon too.
  const openCall = useCallback(
    (approval: PendingApproval) => {
      store.select(approval.chatId);
      chatStores.get(approval.chatId).requestFocus(approval.request.toolCallId);
    },
    [store, chatStores],
  );
  // The inbox (docs/user/approvals.md, "One inbox"), open on one item's key (or on none: `null`).
  const [inbox, setInbox] = useState<false | { focusKey: string | null }>(false);
  const openInInbox = useCallback((approval: PendingApproval | null) => {
    setInbox({ focusKey: approval ? `tool-call:${approval.chatId}:${approval.request.toolCallId}` : null });
  }, []);
  // A browser notification's click opens its call in the inbox, where it can be decided.
  useWaitingAttention({
    api,
    total: waiting.total,
    browser: bridge !== undefined,
    chats: state.chats,
    open: openInInbox,
  });
  // Ctrl/⌘+Shift+A, from anywhere: the inbox, the oldest waiting call focused.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey || event.key.toLowerCase() !== 'a')
        return;
      event.preventDefault();
      openInInbox(waitingStore.getSnapshot().oldest);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [waitingStore, openInInbox]);
  // The exchanges' list and the Markdown renderer are left out of the first screen; they load once that is on
  // screen (LazyMessageList.tsx, LazyMarkdown.tsx): the list right after its first paint, since a chat opened then
  // needs it (an idle callback waits for seconds in a tab that went to the background), the renderer when idle.
  const listed = state.status !== 'loading';
  useEffect(() => {
    if (!listed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(preloadMessageList, 0);
    });
    const idle = requestIdleCallback(preloadMarkdown, { timeout: 1000 });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      cancelIdleCallback(idle);
    };
  }, [listed]);
  useEffect(() => {
    // Load on start, and again after a reconnect: changes made while we were away were not pushed to us.
    if (connection !== 'open') return;
    void store.load();
    void waitingStore.load();
    chatStores.reloadAll();
  }, [store, chatStores, waitingStore, connection]);
  // A notification or the tray asks for a chat: show its tab and bring the waiting call's card into focus.
  useEffect(
    () =>
      api.app.onDidRequestChat(({ chatId, toolCallId }) => {
        store.select(chatId);
        if (toolCallId) chatStores.get(chatId).requestFocus(toolCallId);
      }),
    [api, store, chatStores],
  );
  // Open tabs keep their chat's messages and answers; closed or deleted ones let them go.
  useEffect(() => chatStores.retain(new Set(state.openIds)), [chatStores, state.openIds]);

  const selected = state.chats.find((chat) => chat.id === state.selectedId) ?? null;
  const tabs = useMemo(
    () => state.openIds.flatMap((id) => state.chats.find((chat) => chat.id === id) ?? []),
    [state.openIds, state.chats],
  );

  return (
    <div className="app">
      <Sidebar
        store={store}
        state={state}
        connected={connection === 'open'}
        onOpenSettings={() => setSettingsOpen('providers')}
        onOpenInsights={() => setSettingsOpen('insights')}
        onOpenInbox={() => openInInbox(null)}
        waitingTotal={waiting.total}
        waiting={waiting.byChat}
      />
      <main className="pane">
        {connection !== 'open' && <ConnectionBanner state={connection} />}
        <SettingsFileBanner api={api} />
        {/* The offer is about tool calls: their notifications are what it turns on. */}
        {bridge !== undefined && <NotificationOffer waiting={waiting.all.length} />}
        <TabBar chats={store} tabs={tabs} selectedId={state.selectedId} waiting={waiting.byChat} />
        {state.status === 'loading' ? (
          <div className="pane-center muted">Loading…</div>
        ) : selected ? (
          <ChatPane
            key={selected.id}
            api={api}
            chat={selected}
            chats={store}
            store={chatStores.get(selected.id)}
            trustedServers={trustedServers}
          />
        ) : (
          <Welcome
            onNewChat={() => void store.create()}
            failed={state.status === 'failed'}
            onRetry={() => void store.load()}
          />
        )}
      </main>
      <ServerRequestsTray api={api} />
      {settingsOpen && (
        <Suspense fallback={null}>
          <SettingsDialog api={api} initialSection={settingsOpen} onClose={() => setSettingsOpen(false)} />
        </Suspense>
      )}
      {inbox && (
        <InboxDialog
          api={api}
          approvals={waiting.all}
          requests={waiting.requests}
          chats={state.chats}
          focusKey={inbox.focusKey ?? undefined}
          openCall={(approval) => {
            setInbox(false);
            openCall(approval);
          }}
          onClose={() => setInbox(false)}
        />
      )}
      {state.error && <ErrorToast message={state.error} onDismiss={() => store.dismissError()} />}
    </div>
  );
}
