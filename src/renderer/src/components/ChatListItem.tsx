import { useState } from 'react';
import type { Chat } from '../../../shared/chat';
import type { ChatsStore } from '../state/chats-store';
import { ConfirmDialog } from './ConfirmDialog';
import { PencilIcon, TrashIcon } from './icons';
import { TitleEditor } from './TitleEditor';
import { WaitingBadge } from './WaitingBadge';

export interface ChatListItemProps {
  chat: Chat;
  selected: boolean;
  store: ChatsStore;
  /** Calls that wait for a decision in this chat (WaitingBadge). */
  waiting?: number;
}

type Mode = 'idle' | 'renaming' | 'confirming-delete';

export function ChatListItem({ chat, selected, store, waiting = 0 }: ChatListItemProps): React.JSX.Element {
  const [mode, setMode] = useState<Mode>('idle');

  return (
    <li className={`chat-item${selected ? ' is-selected' : ''}`} data-chat-id={chat.id}>
      {mode === 'renaming' ? (
        <TitleEditor
          initial={chat.title}
          label="Chat title"
          onCommit={async (title) => {
            if (title !== chat.title && !(await store.rename(chat.id, title))) return false;
            setMode('idle');
            return true;
          }}
          onCancel={() => setMode('idle')}
        />
      ) : (
        <>
          <button
            type="button"
            className="chat-item-title"
            aria-current={selected ? 'page' : undefined}
            onClick={() => store.select(chat.id)}
            onDoubleClick={() => setMode('renaming')}
            onKeyDown={(event) => {
              if (event.key === 'F2') setMode('renaming');
              if (event.key === 'Delete') setMode('confirming-delete');
            }}
            title={chat.title}
          >
            {chat.title}
          </button>
          <WaitingBadge count={waiting} />
          <span className="chat-item-actions">
            <button
              type="button"
              className="icon-button"
              aria-label={`Rename ${chat.title}`}
              title="Rename (F2)"
              onClick={() => setMode('renaming')}
            >
              <PencilIcon size={14} />
            </button>
            <button
              type="button"
              className="icon-button danger"
              aria-label={`Delete ${chat.title}`}
              title="Delete (Del)"
              onClick={() => setMode('confirming-delete')}
            >
              <TrashIcon size={14} />
            </button>
          </span>
        </>
      )}
      {mode === 'confirming-delete' && (
        <ConfirmDialog
          title="Delete this chat?"
          confirmLabel="Delete"
          onConfirm={async () => {
            await store.remove(chat.id);
            setMode('idle');
          }}
          onCancel={() => setMode('idle')}
        >
          “{chat.title}” and everything in it will be deleted. This cannot be undone.
        </ConfirmDialog>
      )}
    </li>
  );
}
