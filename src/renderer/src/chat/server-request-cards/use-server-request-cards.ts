import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { ServerRequestView } from '../../../../shared/server-request-views';

/**
 * What servers ask and waits for the person, kept live from `serverRequests.onDidChange`: one chat's, or (null) the
 * requests no chat made, shown in "Server requests" (docs/user/server-requests.md).
 */
export function useServerRequests(api: WorkbenchApi, chatId: string | null): readonly ServerRequestView[] {
  const [requests, setRequests] = useState<readonly ServerRequestView[]>([]);
  useEffect(() => {
    let live = true;
    // A widening asked from a block waits on that block's card in the tool block (SandboxBlock), and a view's tool
    // call below its view (AppCallCards), not twice.
    const mine = (request: ServerRequestView): boolean =>
      request.chatId === chatId &&
      request.kind !== 'app-tool-call' &&
      !(request.kind === 'sandbox-widening' && request.toolCallId !== undefined);
    const off = api.serverRequests.onDidChange(({ kind, request }) => {
      if (!mine(request)) return;
      setRequests((current) => {
        const others = current.filter((item) => item.id !== request.id);
        return kind === 'waiting' ? [...others, request] : others;
      });
    });
    void api.serverRequests
      .list({ chatId })
      .then(({ requests: listed }) => {
        if (!live) return;
        // What arrived by event meanwhile stays; the list fills in what came before.
        setRequests((current) => [
          ...listed.filter((item) => mine(item) && !current.some((known) => known.id === item.id)),
          ...current,
        ]);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      off();
    };
  }, [api, chatId]);
  return requests;
}
