import type { PendingApproval } from '../shared/approval';
import type { ServerRequestView } from '../shared/server-request-views';
import { WAITING_LOOK_MS, waitingTotal } from '../shared/waiting';
import type { EventHub } from './event-hub';
import type { Services } from './services';

/**
 * What waits for the person (docs/user/approvals.md "What waits"), from the services: the one list behind
 * `approvals.pending` and `serverRequests.list` (what the app's count, title and inbox show) and the desktop app's
 * tray and dock badge. The tool calls and servers' requests another process holds (a `workbench chat`) are rows of
 * the same database, so they are listed here too.
 */
export interface WhatWaits {
  /** Every chat's waiting tool calls, oldest first. */
  readonly approvals: readonly PendingApproval[];
  /** The servers' and views' requests that wait: held here, sandbox widenings, a view's calls, held elsewhere. */
  readonly requests: readonly ServerRequestView[];
}

export type WaitingSources = Pick<Services, 'approvals' | 'conversations' | 'sandboxWidenings'>;

/** The requests that wait, of one chat (null: of none) or of all (undefined): `serverRequests.list`. */
export function waitingRequests(services: WaitingSources, chatId?: string | null): ServerRequestView[] {
  return [
    ...services.conversations.serverRequests(chatId),
    ...services.sandboxWidenings.views(chatId),
    ...services.approvals.pending.serverRequests.appCalls(chatId),
    ...services.approvals.pending.serverRequests.heldElsewhere(chatId),
  ];
}

/** Every chat's waiting tool calls, held here or by another process: `approvals.pending` across chats. */
export function waitingApprovals(services: WaitingSources): PendingApproval[] {
  return services.approvals.pending.allWaiting();
}

/** Everything that waits now, across every chat. */
export function whatWaits(services: WaitingSources): WhatWaits {
  return { approvals: waitingApprovals(services), requests: waitingRequests(services) };
}

/** The events after which what waits is counted again (the rest, from other processes, is looked for). */
const WAITING_EVENTS = new Set(['approvals.onDidChange', 'serverRequests.onDidChange', 'chat.onDidChange']);

/** The count of everything that waits, kept current (the desktop app's tray and badge). */
export interface WaitingCount {
  count(): number;
  /** Counts again now (listeners hear a change), and returns the count. */
  refresh(): number;
  /** Called with the new count whenever it changes. */
  onDidChange(listener: (count: number) => void): () => void;
  dispose(): void;
}

/**
 * Counts `list()` again after each event that can change it and every `WAITING_LOOK_MS` for what another process
 * holds, as the app's waiting store does (src/renderer/src/state/waiting-store.ts); listeners hear only a change.
 */
export function createWaitingCount({
  list,
  events,
  onError = () => {},
}: {
  list: () => WhatWaits;
  events: Pick<EventHub, 'subscribe'>;
  onError?: (error: unknown) => void;
}): WaitingCount {
  const listeners = new Set<(count: number) => void>();
  const countNow = (): number | undefined => {
    try {
      return waitingTotal(list());
    } catch (error) {
      onError(error);
      return undefined;
    }
  };
  let count = countNow() ?? 0;
  const look = (): void => {
    const next = countNow();
    if (next === undefined || next === count) return;
    count = next;
    for (const listener of [...listeners]) {
      try {
        listener(count);
      } catch (error) {
        onError(error);
      }
    }
  };
  const unsubscribe = events.subscribe((event) => {
    if (WAITING_EVENTS.has(event)) look();
  });
  const timer = setInterval(look, WAITING_LOOK_MS);
  timer.unref?.();
  return {
    count: () => count,
    refresh() {
      look();
      return count;
    },
    onDidChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      clearInterval(timer);
      unsubscribe();
      listeners.clear();
    },
  };
}
