import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ServerRequestView } from '../../../shared/server-request-views';

/** Every server request that waits for the person, of every chat and of none, kept live (docs/user/server-requests.md). */
export function useAllServerRequests(api: WorkbenchApi): readonly ServerRequestView[] {
  const [requests, setRequests] = useState<readonly ServerRequestView[]>([]);
  useEffect(() => {
    let live = true;
    const off = api.serverRequests.onDidChange(({ kind, request }) => {
      setRequests((current) => {
        const others = current.filter((item) => item.id !== request.id);
        return kind === 'waiting' ? [...others, request] : others;
      });
    });
    void api.serverRequests
      .list({})
      .then(({ requests: listed }) => {
        if (!live) return;
        // What arrived by event meanwhile stays; the list fills in what came before.
        setRequests((current) => [
          ...listed.filter((item) => !current.some((known) => known.id === item.id)),
          ...current,
        ]);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return requests;
}
