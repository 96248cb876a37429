import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ServerRequestView } from '../../../shared/server-request-views';
import { applyRequestChange, applyRequestList } from '../chat/server-request-cards/use-server-request-cards';
import type { RequestCardStates } from '../chat/server-request-cards/request-card-state';

/**
 * Every server request that waits for the person, of every chat and of none, kept live (docs/user/server-requests.md).
 * What their cards kept (`kept`) is forgotten once a request no longer waits.
 */
export function useAllServerRequests(api: WorkbenchApi, kept: RequestCardStates): readonly ServerRequestView[] {
  const [requests, setRequests] = useState<readonly ServerRequestView[]>([]);
  useEffect(() => {
    let live = true;
    const off = api.serverRequests.onDidChange(({ kind, request }) => {
      setRequests((current) => applyRequestChange(current, { kind, request }, kept));
    });
    void api.serverRequests
      .list({})
      .then(({ requests: listed }) => {
        // What arrived by event meanwhile stays; the list fills in what came before.
        if (live) setRequests((current) => applyRequestList(current, listed, kept));
      })
      .catch(() => undefined);
    return () => {
      live = false;
      off();
    };
  }, [api, kept]);
  return requests;
}
