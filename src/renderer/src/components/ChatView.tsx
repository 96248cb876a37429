import { useState } from 'react';
import type { Chat } from '../../../shared/chat';
import type { ChatsStore } from '../state/chats-store';
import { ChatIcon, PencilIcon } from './icons';
import { TitleEditor } from './TitleEditor';

export interface ChatViewProps {
  chat: Chat;
  store: ChatsStore;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function ChatView({ chat, store }: ChatViewProps): React.JSX.Element {
  const [renaming, setRenaming] = useState(false);

  return (
    <section className="chat-view" aria-label={chat.title}>
      <header className="chat-header">
        {renaming ? (
          <TitleEditor
            className="chat-title-editor"
            initial={chat.title}
            label="Chat title"
            onCommit={async (title) => {
              if (title !== chat.title && !(await store.rename(chat.id, title))) return false;
              setRenaming(false);
              return true;
            }}
            onCancel={() => setRenaming(false)}
          />
        ) : (
          <h1 className="chat-title">
            <button type="button" className="chat-title-button" onClick={() => setRenaming(true)} title="Rename">
              <span>{chat.title}</span>
              <PencilIcon size={14} />
            </button>
          </h1>
        )}
        <p className="chat-meta muted">Created {dateFormat.format(chat.createdAt)}</p>
      </header>
      <div className="chat-body">
        <div className="empty-state">
          <span className="empty-state-icon">
            <ChatIcon size={28} />
          </span>
          <h2>No messages yet</h2>
          <p className="muted">
            Messages, tool calls and approvals of this chat will appear here. No tool runs unless you, or a rule you set,
            allowed it.
          </p>
        </div>
      </div>
    </section>
  );
}
