import { useEffect, useState, useSyncExternalStore } from 'react';
import type { WorkbenchApi } from '../../shared/api';
import type { BrowserBridge, ConnectionState } from './bridge/browser-bridge';
import { ChatView } from './components/ChatView';
import { ConnectionBanner } from './components/ConnectionBanner';
import { ErrorToast } from './components/ErrorToast';
import { Sidebar } from './components/Sidebar';
import { Welcome } from './components/Welcome';
import { SettingsDialog } from './settings/SettingsDialog'; // settings (ui-settings)
import { ChatsStore } from './state/chats-store';

export interface AppProps {
  api: WorkbenchApi;
  /** Present in browser mode only: the WebSocket whose state the banner shows. */
  bridge?: BrowserBridge | undefined;
}

export function App({ api, bridge }: AppProps): React.JSX.Element {
  const [store] = useState(() => new ChatsStore(api));
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const connection = useConnectionState(bridge);
  const [settingsOpen, setSettingsOpen] = useState(false); // settings (ui-settings)

  useEffect(() => store.follow(), [store]);
  useEffect(() => {
    // Load on start, and again after a reconnect: changes made while we were away were not pushed to us.
    if (connection === 'open') void store.load();
  }, [store, connection]);

  const selected = state.chats.find((chat) => chat.id === state.selectedId) ?? null;

  return (
    <div className="app">
      <Sidebar store={store} state={state} connected={connection === 'open'} onOpenSettings={() => setSettingsOpen(true)} />
      <main className="pane" aria-live="polite">
        {connection !== 'open' && <ConnectionBanner state={connection} />}
        {state.status === 'loading' ? (
          <div className="pane-center muted">Loading…</div>
        ) : selected ? (
          <ChatView key={selected.id} chat={selected} store={store} />
        ) : (
          <Welcome onNewChat={() => void store.create()} failed={state.status === 'failed'} onRetry={() => void store.load()} />
        )}
      </main>
      {settingsOpen && <SettingsDialog api={api} onClose={() => setSettingsOpen(false)} />}
      {state.error && <ErrorToast message={state.error} onDismiss={() => store.dismissError()} />}
    </div>
  );
}

function useConnectionState(bridge: BrowserBridge | undefined): ConnectionState {
  return useSyncExternalStore(
    (listener) => bridge?.onDidChangeState(listener) ?? (() => {}),
    () => bridge?.state ?? 'open',
  );
}
