import { lazy, memo, Suspense, useMemo } from 'react';
import type { ToolCallRequest } from '../../../shared/approval';
import type { ChatActivity, ChatMessage, ResourceAttachment, ToolCallRecord } from '../../../shared/messages';
import type { ServerRequestView } from '../../../shared/server-request-views';
import type { ArgsEdit, Draft } from './chat-store';
import { CopyButton } from '../components/CopyButton';
import { LazyMarkdown } from './markdown/LazyMarkdown';
import { ErrorNotice } from './ErrorNotice';
import { viewOf, type ExchangeRow } from './timeline';
import { ToolCallBlock } from './ToolCallBlock';
import { AttachmentChips } from './resources/AttachmentChips';

/**
 * The approval card loads the first time a call waits for a person (with the argument editor after it): the first
 * screen does without it (docs/dev/benchmarks.md, renderer-first-load).
 */
const ApprovalCard = lazy(() => import('./approval/ApprovalCard').then((module) => ({ default: module.ApprovalCard })));
const ApprovalIntro = lazy(() =>
  import('./approval/ApprovalIntro').then((module) => ({ default: module.ApprovalIntro })),
);
const ServerRequestCards = lazy(() =>
  import('./server-request-cards/ServerRequests').then((module) => ({ default: module.ChatServerRequests })),
);

/** What only the newest exchange needs: its approvals and what the chat is doing. */
export interface LiveExchangeState {
  activity: ChatActivity;
  drafts: ReadonlyMap<string, Draft>;
  edits: ReadonlyMap<string, ArgsEdit>;
  /** Why the last approval message was refused for a call (approval/refusals.ts). */
  refusals: ReadonlyMap<string, string>;
  expiries: ReadonlyMap<string, number | null>;
  submitting: boolean;
  /** Undo is gone: every call is answered and the approval message is on its way. */
  locked: boolean;
  focusRequest: { toolCallId: string; nonce: number } | null;
  /** What the chat's servers ask of the model or the person while its tools run (docs/user/server-requests.md). */
  serverRequests: readonly ServerRequestView[];
}

export interface ExchangeRowProps {
  row: ExchangeRow;
  live: LiveExchangeState | null;
  onRetry: ((text: string) => void) | null;
}

/**
 * An exchange whose messages the store dropped, while they load again (docs/dev/chat-list.md, "What the store
 * holds"): the store loads them before the list reaches them, so this shows only when scrolling outruns it.
 */
export function DroppedExchange({ exchangeId }: { exchangeId: string }): React.JSX.Element {
  return (
    <article className="exchange exchange-dropped" data-exchange-id={exchangeId} aria-busy="true">
      <p className="muted">Loading…</p>
    </article>
  );
}

/** One exchange: the person's words, then ONE assistant message for every reply the exchange took (seed 000 "NEXT"). */
export const ExchangeRowView = memo(function ExchangeRowView({
  row,
  live,
  onRetry,
}: ExchangeRowProps): React.JSX.Element {
  const view = useMemo(() => viewOf(row), [row]);
  const requests = useMemo(() => {
    const map = new Map<string, ToolCallRequest>();
    for (const reply of view.replies)
      for (const request of reply.reply.pendingToolCalls ?? []) map.set(request.toolCallId, request);
    return map;
  }, [view]);
  const working =
    live !== null &&
    live.activity.exchangeId === row.exchangeId &&
    live.activity.status !== 'idle' &&
    live.activity.status !== 'waiting-approval';
  const hasContent =
    view.turns.some((turn) => turn.message || (turn.toolCalls?.length ?? 0) > 0) ||
    (live?.serverRequests.length ?? 0) > 0;
  const answerText = view.turns
    .map((turn) => turn.message ?? '')
    .filter(Boolean)
    .join('\n\n');
  const lastTextTurn = findLastIndex(view.turns, (turn) => turn.message !== undefined);

  return (
    <article className="exchange" data-exchange-id={row.exchangeId}>
      {view.user && <UserBubble text={view.user.text} attachments={view.user.attachments} />}
      {(hasContent || working || (live?.submitting && live.activity.exchangeId === row.exchangeId)) && (
        <div className="assistant" data-testid="assistant-message" aria-label="Assistant message">
          <div className="assistant-avatar" aria-hidden="true">
            AI
          </div>
          <div className="assistant-body">
            {view.turns.map((turn, index) => (
              <div className="turn" key={index}>
                {turn.message && (
                  <LazyMarkdown text={turn.message} streaming={view.streaming && index === lastTextTurn} />
                )}
                {turn.toolCalls && turn.toolCalls.length > 0 && (
                  <div className="tool-calls">
                    {turn.toolCalls.map((call) => (
                      <CallView key={call.toolCallId} call={call} request={requests.get(call.toolCallId)} live={live} />
                    ))}
                    {/* Below the cards, beside their buttons: it explains them without moving them. */}
                    {live && turn.toolCalls.some((call) => requests.has(call.toolCallId)) && (
                      <Suspense fallback={null}>
                        <ApprovalIntro />
                      </Suspense>
                    )}
                  </div>
                )}
              </div>
            ))}
            {live && live.serverRequests.length > 0 && (
              <Suspense fallback={null}>
                <ServerRequestCards requests={live.serverRequests} />
              </Suspense>
            )}
            {/* While text streams, the text itself shows progress: no animation repainting every frame beside it. */}
            {working && !(view.streaming && live.activity.status === 'generating' && hasContent) && (
              <WorkingIndicator status={live.activity.status} empty={!hasContent} />
            )}
            {!working &&
              answerText &&
              !view.streaming &&
              view.pendingIds.size === 0 &&
              view.replies.at(-1)?.end !== 'waiting-approval' && (
                <div className="assistant-actions">
                  <CopyButton text={answerText} label="Copy answer" />
                  {view.replies.at(-1) && <span className="muted assistant-model">{view.replies.at(-1)?.model}</span>}
                </div>
              )}
          </div>
        </div>
      )}
      {view.notices.map((notice) => (
        <Notice
          key={notice.id}
          notice={notice}
          onRetry={onRetry && view.user ? () => onRetry(view.user?.text ?? '') : null}
        />
      ))}
    </article>
  );
});

function CallView({
  call,
  request,
  live,
}: {
  call: ToolCallRecord;
  request: ToolCallRequest | undefined;
  live: LiveExchangeState | null;
}): React.JSX.Element {
  if (request && live) {
    return (
      <Suspense fallback={null}>
        <ApprovalCard
          request={request}
          draft={live.drafts.get(call.toolCallId)}
          edit={live.edits.get(call.toolCallId)}
          refusal={live.refusals.get(call.toolCallId)}
          expiresAt={live.expiries.get(call.toolCallId)}
          locked={live.locked}
          focusNonce={live.focusRequest?.toolCallId === call.toolCallId ? live.focusRequest.nonce : undefined}
        />
      </Suspense>
    );
  }
  return <ToolCallBlock call={call} />;
}

const UserBubble = memo(function UserBubble({
  text,
  attachments,
}: {
  text: string;
  attachments?: readonly ResourceAttachment[] | undefined;
}): React.JSX.Element {
  return (
    <div className="user-row">
      <div className="user-bubble" data-testid="user-message">
        {text}
      </div>
      {attachments && <AttachmentChips attachments={attachments} />}
    </div>
  );
});

function WorkingIndicator({ status, empty }: { status: ChatActivity['status']; empty: boolean }): React.JSX.Element {
  const label = status === 'running-tools' ? 'Running tools…' : empty ? 'Thinking…' : 'Writing…';
  return (
    <div className="working" role="status" aria-label={label}>
      <span className="dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      <span className="muted">{label}</span>
    </div>
  );
}

function Notice({
  notice,
  onRetry,
}: {
  notice: Extract<ChatMessage, { role: 'system' | 'error' }>;
  onRetry: (() => void) | null;
}): React.JSX.Element {
  if (notice.role === 'error') return <ErrorNotice error={notice.error} onRetry={onRetry} />;
  return (
    <p className={`chat-notice chat-notice-${notice.kind}`} role="note">
      {notice.text}
    </p>
  );
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index] as T)) return index;
  return -1;
}
