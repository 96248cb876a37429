import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { Chat } from '../../../shared/chat';
import { PlusIcon } from '../components/icons';
import type { BrowserBridge } from '../bridge/browser-bridge';
import { useConnectionState } from '../bridge/use-connection-state';
import type { ChatsStore } from '../state/chats-store';
import { ChatPane } from './ChatPane';
import { errorText } from '../../../shared/error-data';
import { ChatStores } from './chat-store';
import { useTrustedServers } from './use-trusted-servers';

const QUICK_KEY = 'aiwb.quickChat';

/**
 * Quick chat (`#/quick`, the desktop app's small always-on-top window): one chat in the same chat pane as the main
 * window — the same cards, keys and stores — without the sidebar and tabs. It keeps to the chat it last showed,
 * and "New" starts another, titled by its first message like any chat. It never touches the main window's tabs.
 */
export function QuickChat({
  api,
  bridge,
}: {
  api: WorkbenchApi;
  bridge?: BrowserBridge | undefined;
}): React.JSX.Element {
  const connection = useConnectionState(bridge);
  const [problem, setProblem] = useState<string | null>(null);
  // Renames go straight to the contract: the main window's chat list (and its tabs) stays the main window's.
  const [chats] = useState<Pick<ChatsStore, 'rename'>>(() => ({
    rename: (id, title) =>
      api.chat.rename({ id, title }).then(
        () => true,
        (error: unknown) => {
          setProblem(errorText(error));
          return false;
        },
      ),
  }));
  const [stores] = useState(() => new ChatStores(api));
  const trustedServers = useTrustedServers(api);
  const [chat, setChat] = useState<Chat | null>(null);

  const startNew = async (): Promise<void> => {
    try {
      const created = await api.chat.create({});
      writeQuickId(created.id);
      setChat(created);
    } catch (error) {
      setProblem(errorText(error));
    }
  };

  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    const id = readQuickId();
    const open = id ? api.chat.get({ id }) : Promise.reject(new Error('no quick chat yet'));
    open.then(
      (found) => live && setChat(found),
      () => {
        if (!live) return;
        void api.chat.create({}).then(
          (created) => {
            writeQuickId(created.id);
            if (live) setChat(created);
          },
          (error: unknown) => live && setProblem(errorText(error)),
        );
      },
    );
    return () => {
      live = false;
    };
  }, [api, connection]);
  // Renames and model changes made anywhere show here too.
  useEffect(
    () =>
      api.chat.onDidChange((change) => {
        if (change.kind === 'updated') setChat((current) => (current?.id === change.chat.id ? change.chat : current));
        if (change.kind === 'deleted') setChat((current) => (current?.id === change.id ? null : current));
      }),
    [api],
  );

  return (
    <div className="quick-chat">
      <header className="quick-chat-bar">
        <span className="quick-chat-name">Quick chat</span>
        <button type="button" className="button quick-chat-new" onClick={() => void startNew()}>
          <PlusIcon size={14} />
          New
        </button>
      </header>
      <main className="pane">
        {chat ? (
          <ChatPane
            key={chat.id}
            api={api}
            chat={chat}
            chats={chats}
            store={stores.get(chat.id)}
            trustedServers={trustedServers}
          />
        ) : (
          <div className="pane-center muted">{problem ?? 'Loading…'}</div>
        )}
      </main>
    </div>
  );
}

function readQuickId(): string | null {
  try {
    return localStorage.getItem(QUICK_KEY);
  } catch {
    return null;
  }
}

function writeQuickId(id: string): void {
  try {
    localStorage.setItem(QUICK_KEY, id);
  } catch {
    // storage unavailable: the next quick chat starts anew
  }
}
