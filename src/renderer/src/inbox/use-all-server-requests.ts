import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ServerRequestView } from '../../../shared/server-request-views';
import { applyRequestChange, applyRequestList } from '../chat/server-request-cards/use-server-request-cards';
import type { RequestCardStates } from '../chat/server-request-cards/request-card-state';

/** How often the open inbox looks again for what other processes hold (they send no events here). */
export const ELSEWHERE_POLL_MS = 1_000;

/**
 * Every server request that waits for the person, of every chat and of none, kept live (docs/user/server-requests.md).
 * What their cards kept (`kept`) is forgotten once a request no longer waits.
 *
 * The requests this process holds come and go by event; those another process holds (a `workbench chat`,
 * docs/user/approvals.md#one-inbox) send none here, so while the inbox is open (this hook is mounted) it lists them
 * again every second: a request answered, timed out or ended there leaves, a new one or its next stage arrives.
 * Closing the inbox stops it.
 */
export function useAllServerRequests(api: WorkbenchApi, kept: RequestCardStates): readonly ServerRequestView[] {
  const [requests, setRequests] = useState<readonly ServerRequestView[]>([]);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = api.serverRequests.onDidChange(({ kind, request }) => {
      setRequests((current) => applyRequestChange(current, { kind, request }, kept));
    });
    const look = (first: boolean): void => {
      void api.serverRequests
        .list({})
        .then(({ requests: listed }) => {
          // What arrived by event meanwhile stays; the list fills in what came before.
          if (live)
            setRequests((current) =>
              first ? applyRequestList(current, listed, kept) : applyElsewhereList(current, listed, kept),
            );
        })
        .catch(() => undefined)
        .finally(() => {
          if (live) timer = setTimeout(() => look(false), ELSEWHERE_POLL_MS);
        });
    };
    look(true);
    return () => {
      live = false;
      clearTimeout(timer);
      off();
    };
  }, [api, kept]);
  return requests;
}

/**
 * A later listing: for the requests other processes hold it is the truth (they send no events), so those it no
 * longer has leave and their new stages replace them; the requests held here keep following their events (a listing
 * that crossed an event must not undo it).
 */
export function applyElsewhereList(
  current: readonly ServerRequestView[],
  listed: readonly ServerRequestView[],
  kept: RequestCardStates,
): readonly ServerRequestView[] {
  const elsewhere = listed.filter((item) => item.heldElsewhere);
  const here = current.filter((item) => !item.heldElsewhere && !elsewhere.some((other) => other.id === item.id));
  const before = current.filter((item) => item.heldElsewhere);
  const unchanged =
    before.length === elsewhere.length &&
    before.every((item, index) => sameStage(item, elsewhere[index] as ServerRequestView));
  if (unchanged) return current;
  const next = [...here, ...elsewhere];
  kept.retain(new Set(next.map((item) => item.id)));
  return next;
}

const sameStage = (a: ServerRequestView, b: ServerRequestView): boolean =>
  a.id === b.id && (a.kind !== 'sampling' || (b.kind === 'sampling' && a.stage === b.stage));
