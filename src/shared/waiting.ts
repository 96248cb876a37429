/**
 * What waits for the person (docs/user/approvals.md "What waits"): the tool calls of every chat and the requests of
 * servers and views, held by this process or by another one (a `workbench chat`). The app's sidebar count, window
 * title and inbox, and the desktop app's tray and dock badge all count it this way.
 */

/**
 * How often what waits is listed again: what another process holds (its tool calls, its servers' requests) sends
 * no event to this one.
 */
export const WAITING_LOOK_MS = 1_000;

/** The count of everything that waits: the tool calls and the requests, wherever they are held. */
export function waitingTotal(waiting: { approvals: readonly unknown[]; requests: readonly unknown[] }): number {
  return waiting.approvals.length + waiting.requests.length;
}

/** "1 request waits" / "3 requests wait": the count of everything that waits, in words. */
export function inboxLabel(count: number): string {
  return count === 1 ? '1 request waits for your answer' : `${count} requests wait for your answer`;
}
