import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso';
import { pendingRequests, phaseOf, type ChatState, type ChatStore } from './chat-store';
import { useChatContext } from './chat-context';
import { ExchangeRowView, type LiveExchangeState } from './ExchangeRow';
import { useServerRequests } from './server-request-cards/use-server-request-cards';
import type { ExchangeRow } from './timeline';
import { useFollowEnd } from './follow-end';

export interface MessageListProps {
  store: ChatStore;
  state: ChatState;
}

/**
 * The chat's exchanges in a virtualised list (react-virtuoso: only what is on screen is in the DOM, heights are
 * measured as rows render, it stays at the bottom while a reply grows, and keeps its place when older pages
 * are put in front). Opens at the newest exchange; scrolling to the top loads the page before.
 */
export function MessageList({ store, state }: MessageListProps): React.JSX.Element {
  const list = useRef<VirtuosoHandle>(null);
  const rows = state.timeline.rows;
  const lastId = rows.at(-1)?.exchangeId;
  const waiting = pendingRequests(state.timeline);
  const allDecided = waiting.length > 0 && waiting.every((request) => state.drafts.has(request.toolCallId));
  // What the chat's servers ask while its tools run: cards in the running exchange, like its tool calls' cards.
  const serverRequests = useServerRequests(useChatContext().api, store.chatId);
  const live = useMemo<LiveExchangeState>(
    () => ({
      activity: state.activity,
      drafts: state.drafts,
      edits: state.edits,
      refusals: state.refusals,
      expiries: state.expiries,
      submitting: state.submitting,
      locked: state.submitting || (allDecided && state.actionError === null),
      focusRequest: state.focusRequest,
      serverRequests,
    }),
    [
      state.activity,
      state.drafts,
      state.edits,
      state.refusals,
      state.expiries,
      state.submitting,
      allDecided,
      state.actionError,
      state.focusRequest,
      serverRequests,
    ],
  );
  const idle = phaseOf(state) === 'idle';
  const edge = useMemo<ListEdge>(
    () => ({ hasMore: state.hasMore, loadingOlder: state.loadingOlder }),
    [state.hasMore, state.loadingOlder],
  );
  const retry = useCallback((text: string) => void store.send(text), [store]);

  // The list follows its end until the person scrolls up themselves (follow-end.ts): it opens at the newest exchange
  // (Virtuoso's initialTopMostItemIndex keeps the list hidden until it has scrolled there, which never happens when
  // everything fits on screen; so follow once it has mounted), and a card to focus brings its exchange into view
  // first (the card focuses itself once rendered).
  const end = useFollowEnd(list);
  const { follow } = end;
  useLayoutEffect(() => follow(), [follow]);
  useEffect(() => {
    if (state.focusRequest) follow();
  }, [state.focusRequest, follow]);

  // A new exchange (a message sent, here or from another window) is shown, wherever the list was scrolled to: its
  // reply and its approval cards must not arrive out of sight (only rows on screen are in the DOM). Older pages put
  // in front do not change the last row.
  const shownLast = useRef(lastId);
  useEffect(() => {
    if (lastId === shownLast.current) return;
    shownLast.current = lastId;
    follow();
  }, [lastId, follow]);

  // A call that starts waiting brings the list down too, when the person had scrolled up: its card is at the end of
  // the newest exchange. While the list follows its end already, the card's height is followed like a reply's;
  // scrolling again there would only move the cards under the pointer.
  const waitingCount = waiting.length + serverRequests.length;
  const shownWaiting = useRef(waitingCount);
  useEffect(() => {
    const before = shownWaiting.current;
    shownWaiting.current = waitingCount;
    if (waitingCount > before && !end.isFollowing()) follow();
  }, [waitingCount, end, follow]);

  const itemContent = useCallback(
    (_index: number, row: ExchangeRow) => (
      <ExchangeRowView
        row={row}
        live={row.exchangeId === lastId ? live : null}
        onRetry={row.exchangeId === lastId && idle ? retry : null}
      />
    ),
    [lastId, live, idle, retry],
  );

  return (
    <Virtuoso
      ref={list}
      className="message-list"
      data={rows as ExchangeRow[]}
      firstItemIndex={state.firstItemIndex}
      computeItemKey={(_index, row) => row.exchangeId}
      itemContent={itemContent}
      followOutput={(atBottom) => (atBottom ? 'auto' : false)}
      atBottomThreshold={80}
      atBottomStateChange={end.onAtBottom}
      totalListHeightChanged={end.onHeightChanged}
      scrollerRef={end.scrollerRef}
      increaseViewportBy={{ top: 200, bottom: 200 }}
      defaultItemHeight={180}
      startReached={() => void store.loadOlder()}
      context={edge}
      components={COMPONENTS}
    />
  );
}

interface ListEdge {
  hasMore: boolean;
  loadingOlder: boolean;
}

// Defined once: new component types on each render would make the list mount every row again (losing focus).
const COMPONENTS = {
  Header: ({ context }: { context?: ListEdge }) => (
    <div className="list-edge muted">{context?.hasMore && context.loadingOlder ? 'Loading earlier messages…' : ''}</div>
  ),
  Footer: () => <div className="list-footer" />,
};
