import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { onProposedMessage } from './proposed-message';
import { PaperclipIcon, SendIcon, StopIcon } from '../components/icons';
import { ApprovalBar } from './approval/ApprovalBar';
import { AttachmentChips } from './resources/AttachmentChips';
import { useAttachments } from './resources/use-attachments';
import { useChatContext } from './chat-context';
import { pendingRequests, phaseOf, type ChatState, type ChatStore } from './chat-store';
import { useSlashPrompts } from './prompts/SlashPrompts';

/**
 * Whether the message box grows with its text by CSS alone (`field-sizing: content`, chat.css): Chromium, so the
 * desktop app and browser mode in Chrome or Edge. Elsewhere it is measured after each change, which forces a layout
 * (on the first screen too: docs/dev/benchmarks.md, app-start).
 */
const SIZES_ITSELF = typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content');

// The resource picker loads when first opened (docs/dev/benchmarks.md, renderer-first-load).
const ResourcePicker = lazy(() =>
  import('./resources/ResourcePicker').then((module) => ({ default: module.ResourcePicker })),
);

export interface ComposerProps {
  store: ChatStore;
  state: ChatState;
  /** The chat has a provider and a model. */
  ready: boolean;
}

const PLACEHOLDERS = {
  loading: 'Loading…',
  idle: 'Message AI Workbench — Enter to send, Shift+Enter for a new line',
  replying: 'Waiting for the reply…',
  'waiting-approval': 'Answer the tool calls above to continue',
  submitting: 'Waiting for the reply…',
} as const;

/** The message input. Disabled from the start of an approval cycle until the next response (seed 000). */
export function Composer({ store, state, ready }: ComposerProps): React.JSX.Element {
  const [text, setText] = useState('');
  const [picking, setPicking] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const phase = phaseOf(state);
  const waiting = pendingRequests(state.timeline);
  const enabled = phase === 'idle' && ready;
  const { api } = useChatContext();
  // Resources to send with the next message (docs/user/mcp-servers.md#resources).
  const attachments = useAttachments(api);
  const slash = useSlashPrompts(api, text, setText, () => input.current?.focus(), enabled);
  const running = state.activity.status !== 'idle' || phase === 'waiting-approval';
  // A view's proposed message lands here, not sent (docs/user/mcp-apps.md#what-a-view-may-ask).
  useEffect(
    () =>
      onProposedMessage(store.chatId, (proposed) => {
        setText(proposed);
        input.current?.focus();
      }),
    [store.chatId],
  );

  useEffect(() => {
    const element = input.current;
    if (!element || SIZES_ITSELF) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, 240)}px`;
  }, [text]);
  // Back to the input when the reply is done (and when the chat opens), but never out of another field the person is
  // typing in: the chat search, a dialog's field. Text typed there must not land in the message box. When the chat
  // opens, once it has painted: focusing forces a style pass (~20 ms on a slow host) that held back the first screen
  // (docs/dev/benchmarks.md, app-start).
  const painted = useRef(false);
  useEffect(() => {
    if (phase !== 'idle') return;
    const focus = (): void => {
      const active = document.activeElement;
      const typingElsewhere =
        active instanceof HTMLElement &&
        active !== input.current &&
        (active.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName));
      if (!typingElsewhere) input.current?.focus();
    };
    if (painted.current) return focus();
    painted.current = true;
    // What took the focus meanwhile keeps it: the tab that the keyboard closed its neighbour from, say.
    const before = document.activeElement;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        if (document.activeElement === before) focus();
      }, 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [phase]);

  const send = async (): Promise<void> => {
    const message = text.trim();
    if (!message || !enabled) return;
    setText('');
    const sending = attachments.take();
    if (!(await store.send(message, sending))) {
      setText(message);
      attachments.restore(sending);
    }
  };

  return (
    <div className="composer-area">
      {phase === 'waiting-approval' && waiting.length > 0 && (
        <ApprovalBar store={store} state={state} waiting={waiting} />
      )}
      {state.actionError && (
        <div className="composer-error" role="alert">
          <span>{state.actionError}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => store.dismissError()}>
            ×
          </button>
        </div>
      )}
      {slash.panel}
      <AttachmentChips
        attachments={attachments.pending.map((item) => item.attachment)}
        changed={attachments.pending.map((item) => item.changed)}
        onRemove={attachments.remove}
        onRefresh={(index) => void attachments.refresh(index)}
      />
      {attachments.problem && (
        <p className="field-problem" role="alert">
          {attachments.problem}
        </p>
      )}
      <form
        className={`composer${enabled ? '' : ' is-disabled'}`}
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <button
          type="button"
          className="composer-button attach"
          aria-label="Attach a resource"
          title="Attach a resource from an MCP server"
          disabled={!enabled}
          onClick={() => setPicking(true)}
        >
          <PaperclipIcon size={16} />
        </button>
        <textarea
          ref={input}
          rows={1}
          aria-label="Message"
          placeholder={ready ? PLACEHOLDERS[phase] : 'Pick a provider and model above to start'}
          value={text}
          // Read-only rather than disabled: the keyboard's focus stays here through a reply, and Shift+Tab reaches
          // the cards above (docs/user/accessibility.md#keyboard).
          readOnly={!enabled}
          aria-disabled={!enabled || undefined}
          onChange={(event) => setText(event.target.value)}
          {...slash.inputProps}
          onKeyDown={(event) => {
            if (slash.onKeyDown(event)) {
              event.preventDefault();
              return;
            }
            if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        {running ? (
          <button
            type="button"
            className="composer-button stop"
            aria-label="Stop"
            title="Stop the reply"
            onClick={() => void store.stop()}
          >
            <StopIcon size={14} />
          </button>
        ) : (
          <button
            type="submit"
            className="composer-button"
            aria-label="Send"
            title="Send (Enter)"
            disabled={!enabled || text.trim() === ''}
          >
            <SendIcon size={16} />
          </button>
        )}
      </form>
      {picking && (
        <Suspense fallback={null}>
          <ResourcePicker
            api={api}
            onClose={() => {
              setPicking(false);
              input.current?.focus();
            }}
            onAttach={attachments.add}
          />
        </Suspense>
      )}
    </div>
  );
}
