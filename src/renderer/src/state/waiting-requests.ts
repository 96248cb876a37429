import type { ServerRequestsChange, ServerRequestView } from '../../../shared/server-request-views';

/**
 * The servers' requests that wait for the person, of every chat and of none, held here or by another process
 * (docs/user/approvals.md "What waits"): what the waiting store counts with the tool calls and the inbox shows.
 *
 * Those this process holds come and go by event; those another process holds (a `workbench chat`) send none here,
 * so the store lists them all again every second. A listing is the truth as of when it was asked for: the events that
 * arrived while it was on its way are applied over it again (`afterListing`), so that a listing that crossed an event
 * does not undo it.
 */

/** A request that starts waiting joins the list (or replaces its earlier stage); one that no longer waits leaves. */
export function withRequestChange(
  current: readonly ServerRequestView[],
  { kind, request }: Pick<ServerRequestsChange, 'kind' | 'request'>,
): readonly ServerRequestView[] {
  const others = current.filter((item) => item.id !== request.id);
  return kind === 'waiting' ? [...others, request] : others;
}

/**
 * The list after a listing: what it listed, with the events that arrived since it was asked for applied over it.
 * Returns `current` itself when nothing a person would see changed (no render for a listing every second).
 */
export function afterListing(
  current: readonly ServerRequestView[],
  listed: readonly ServerRequestView[],
  since: readonly Pick<ServerRequestsChange, 'kind' | 'request'>[],
): readonly ServerRequestView[] {
  const next = since.reduce(withRequestChange, listed);
  return sameRequests(current, next) ? current : next;
}

/** Whether two lists hold the same requests at the same stages, held by the same processes. */
export function sameRequests(a: readonly ServerRequestView[], b: readonly ServerRequestView[]): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(a.map((item) => [item.id, item]));
  return b.every((item) => {
    const other = byId.get(item.id);
    return other !== undefined && stageOf(other) === stageOf(item);
  });
}

const stageOf = (item: ServerRequestView): string =>
  `${item.kind}:${item.kind === 'sampling' ? item.stage : ''}:${item.heldElsewhere ? `${item.heldElsewhere.pid}` : ''}`;
