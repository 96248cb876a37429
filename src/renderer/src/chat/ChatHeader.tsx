import { useEffect, useId, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ChatApprovalMode } from '../../../shared/approval';
import type { Chat } from '../../../shared/chat';
import type { ModelInfo, ProviderInfo } from '../../../shared/llm';
import { PencilIcon } from '../components/icons';
import { TitleEditor } from '../components/TitleEditor';
import { useChatMode } from './use-chat-mode';
import type { ChatsStore } from '../state/chats-store';
import { errorText } from '../../../shared/error-data';

export interface ChatHeaderProps {
  api: WorkbenchApi;
  chat: Chat;
  /** Renames the chat: resolves false (and shows why elsewhere) when it failed. */
  chats: Pick<ChatsStore, 'rename'>;
  /** Changing the model or mode is refused while a reply runs. */
  busy: boolean;
}

const MODES: { value: ChatApprovalMode; label: string }[] = [
  { value: 'use-tool-settings', label: 'Ask per tool settings' },
  { value: 'always-ask', label: 'Always ask' },
  // Not "approvals off": in a chat, ask rules and tools set to "Always ask" still ask (docs/dev/architecture.md, the decision order).
  { value: 'never-ask', label: 'Never ask (except “Always ask”)' },
];

/** The chat's title (click to rename), its provider and model, and its approval mode. */
export function ChatHeader({ api, chat, chats, busy }: ChatHeaderProps): React.JSX.Element {
  const [renaming, setRenaming] = useState(false);
  return (
    <header className="chat-header">
      <div className="chat-header-title">
        {renaming ? (
          <TitleEditor
            className="chat-title-editor"
            initial={chat.title}
            label="Chat title"
            onCommit={async (title) => {
              if (title !== chat.title && !(await chats.rename(chat.id, title))) return false;
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
      </div>
      <div className="chat-controls">
        <ModelPicker api={api} chat={chat} disabled={busy} />
        <ApprovalModePicker api={api} chatId={chat.id} disabled={busy} />
      </div>
    </header>
  );
}

function useProviders(api: WorkbenchApi): ProviderInfo[] {
  const [providers, setProviders] = useState<ProviderInfo[]>([]);
  useEffect(() => {
    let live = true;
    void api.providers.list().then(
      (result) => live && setProviders(result.providers),
      () => {},
    );
    const off = api.providers.onDidChange((change) => setProviders(change.providers));
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return providers;
}

function ModelPicker({ api, chat, disabled }: { api: WorkbenchApi; chat: Chat; disabled: boolean }): React.JSX.Element {
  const providers = useProviders(api);
  const [loaded, setLoaded] = useState<{ providerId: string; models: ModelInfo[] } | null>(null);
  // What is typed in the model field until it is applied; null shows the chat's model.
  const [typed, setTyped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const listId = useId();
  const models = loaded && loaded.providerId === chat.providerId ? loaded.models : [];
  const model = typed ?? chat.model ?? '';
  useEffect(() => {
    const providerId = chat.providerId;
    if (!providerId) return;
    let live = true;
    void api.providers.models({ id: providerId }).then(
      (result) => live && setLoaded({ providerId, models: result.models }),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [api, chat.providerId]);

  const configure = async (input: { providerId?: string; model?: string }): Promise<void> => {
    try {
      await api.chat.configure({ id: chat.id, ...input });
      setTyped(null);
      setProblem(null);
    } catch (error) {
      setProblem(errorText(error));
    }
  };

  return (
    <div className="picker">
      <label className="picker-field">
        <span className="visually-hidden">Provider</span>
        <select
          aria-label="Provider"
          value={chat.providerId ?? ''}
          disabled={disabled}
          onChange={(event) => {
            const provider = providers.find((candidate) => candidate.id === event.target.value);
            if (provider)
              void configure({
                providerId: provider.id,
                ...(provider.defaultModel ? { model: provider.defaultModel } : {}),
              });
          }}
        >
          {chat.providerId === null && <option value="">Pick a provider</option>}
          {chat.providerId !== null && !providers.some((provider) => provider.id === chat.providerId) && (
            <option value={chat.providerId}>{chat.providerId}</option>
          )}
          {providers.map((provider) => (
            <option key={provider.id} value={provider.id}>
              {provider.label}
            </option>
          ))}
        </select>
      </label>
      <label className="picker-field">
        <span className="visually-hidden">Model</span>
        <input
          aria-label="Model"
          list={listId}
          value={model}
          disabled={disabled || chat.providerId === null}
          placeholder="Model"
          onChange={(event) => {
            setTyped(event.target.value);
            // Picking from the list applies at once; typed names apply on Enter or leaving the field.
            if (models.some((candidate) => candidate.id === event.target.value))
              void configure({ model: event.target.value });
          }}
          onBlur={() => model.trim() && model !== chat.model && void configure({ model: model.trim() })}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && model.trim()) void configure({ model: model.trim() });
          }}
        />
        <datalist id={listId}>
          {models.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.label ?? candidate.id}
            </option>
          ))}
        </datalist>
      </label>
      {problem && (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

function ApprovalModePicker({
  api,
  chatId,
  disabled,
}: {
  api: WorkbenchApi;
  chatId: string;
  disabled: boolean;
}): React.JSX.Element {
  const mode = useChatMode(api, chatId) ?? 'use-tool-settings';
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <label
      className={`picker-field mode-picker${mode === 'never-ask' ? ' is-warning' : ''}`}
      title="How tool calls in this chat are approved"
    >
      <span className="visually-hidden">Approval mode</span>
      <select
        aria-label="Approval mode"
        value={mode}
        disabled={disabled}
        onChange={(event) => {
          const next = event.target.value as ChatApprovalMode;
          // The new mode arrives through approvals.onDidChange, here and in the chat's banner.
          api.approvals.setChatMode({ chatId, mode: next }).then(
            () => setProblem(null),
            (error: unknown) => setProblem(errorText(error)),
          );
        }}
      >
        {MODES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {problem && (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </label>
  );
}
