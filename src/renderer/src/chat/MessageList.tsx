import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso';
import { pendingRequests, phaseOf, type ChatState, type ChatStore } from './chat-store';
import { useChatContext } from './chat-context';
import { DroppedExchange, ExchangeRowView, type LiveExchangeState } from './ExchangeRow';
import { useServerRequests } from './server-request-cards/use-server-request-cards';
import type { ExchangeRow } from './timeline';
import { useFollowEnd } from './follow-end';
import { extendDown, extendUp, holdsEnd, holdsStart, reconcile, windowAtEnd, type Loaded } from './list-window';

export interface MessageListProps {
  store: ChatStore;
  state: ChatState;
}

/**
 * The chat's exchanges in a virtualised list (react-virtuoso: only what is on screen is in the DOM, heights are
 * measured as rows render, it stays at the bottom while a reply grows, and keeps its place when rows are put in
 * front or dropped there). It holds a bounded window of the loaded exchanges (list-window.ts, docs/dev/chat-list.md):
 * opens at the newest; scrolling to the top shows older loaded rows, then loads the page before; rows far below
 * are dropped and come back as the person scrolls down to them.
 */
export function MessageList({ store, state }: MessageListProps): React.JSX.Element {
  const list = useRef<VirtuosoHandle>(null);
  const rows = state.timeline.rows;
  const loaded = useMemo<Loaded>(
    () => ({ first: state.firstItemIndex, count: rows.length }),
    [state.firstItemIndex, rows.length],
  );
  // The window follows what the store loaded (computed while rendering: a window behind the rows for one render
  // would show the list rows it no longer holds). `jumps` counts jumps to the end from a window that did not hold
  // it: the list is mounted again there rather than shifted across thousands of rows it never measured.
  const [held, setHeld] = useState(() => ({ window: windowAtEnd(loaded), loaded, jumps: 0 }));
  let range = held.window;
  if (held.loaded !== loaded) {
    range = reconcile(held.window, held.loaded, loaded);
    setHeld({ window: range, loaded, jumps: held.jumps });
  }
  // For the list's callbacks, which Virtuoso calls after it has measured what was rendered.
  const latest = useRef({ window: range, loaded });
  useLayoutEffect(() => {
    latest.current = { window: range, loaded };
  }, [range, loaded]);
  // The store keeps the messages of the rows around the window only, and loads dropped ones again ahead of it.
  useEffect(() => store.keepAround(range), [store, range, rows.length]);
  const holdsEndNow = useCallback(() => holdsEnd(latest.current.window, latest.current.loaded), []);
  const shown = useMemo(
    () => rows.slice(range.start - loaded.first, range.end - loaded.first) as ExchangeRow[],
    [rows, range, loaded.first],
  );
  const lastId = rows.at(-1)?.exchangeId;
  const waiting = pendingRequests(state.timeline);
  const allDecided = waiting.length > 0 && waiting.every((request) => state.drafts.has(request.toolCallId));
  // What the chat's servers ask while its tools run: cards in the running exchange, like its tool calls' cards.
  const serverRequests = useServerRequests(useChatContext().api, store.chatId, store.requestCardStates);
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
  const atStart = holdsStart(range, loaded);
  const edge = useMemo<ListEdge>(
    () => ({ hasMore: state.hasMore && atStart, loadingOlder: state.loadingOlder }),
    [state.hasMore, atStart, state.loadingOlder],
  );
  const retry = useCallback((text: string) => void store.send(text), [store]);

  // The list follows its end until the person scrolls up themselves (follow-end.ts): it opens at the newest exchange
  // (Virtuoso's initialTopMostItemIndex keeps the list hidden until it has scrolled there, which never happens when
  // everything fits on screen; so follow once it has mounted), and a card to focus brings its exchange into view
  // first (the card focuses itself once rendered).
  const end = useFollowEnd(list, holdsEndNow);
  const { follow: followHeld } = end;
  const follow = useCallback(() => {
    const now = latest.current;
    if (!holdsEnd(now.window, now.loaded))
      setHeld((before) => ({ window: windowAtEnd(before.loaded), loaded: before.loaded, jumps: before.jumps + 1 }));
    followHeld();
  }, [followHeld]);
  useLayoutEffect(() => followHeld(), [followHeld, held.jumps]);
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

  const startReached = useCallback(() => {
    const now = latest.current;
    if (holdsStart(now.window, now.loaded)) void store.loadOlder();
    else setHeld((before) => ({ ...before, window: extendUp(before.window, before.loaded) }));
  }, [store]);
  const endReached = useCallback(() => {
    const now = latest.current;
    if (!holdsEnd(now.window, now.loaded))
      setHeld((before) => ({ ...before, window: extendDown(before.window, before.loaded) }));
  }, []);

  const itemContent = useCallback(
    (_index: number, row: ExchangeRow) =>
      row.dropped ? (
        <DroppedExchange exchangeId={row.exchangeId} />
      ) : (
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
      key={held.jumps}
      ref={list}
      className="message-list"
      data={shown}
      firstItemIndex={range.start}
      computeItemKey={(_index, row) => row.exchangeId}
      itemContent={itemContent}
      followOutput={() => (end.isFollowing() ? 'auto' : false)}
      atBottomThreshold={80}
      atBottomStateChange={end.onAtBottom}
      totalListHeightChanged={end.onHeightChanged}
      scrollerRef={end.scrollerRef}
      increaseViewportBy={{ top: 200, bottom: 200 }}
      defaultItemHeight={180}
      startReached={startReached}
      endReached={endReached}
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
