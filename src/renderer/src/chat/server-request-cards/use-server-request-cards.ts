import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { ServerRequestsChange, ServerRequestView } from '../../../../shared/server-request-views';
import type { RequestCardStates } from './request-card-state';

/**
 * What servers ask and waits for the person, kept live from `serverRequests.onDidChange`: one chat's, or (null) the
 * requests no chat made, shown in "Server requests" (docs/user/server-requests.md). What their cards kept (`kept`) is
 * forgotten once a request no longer waits.
 */
export function useServerRequests(
  api: WorkbenchApi,
  chatId: string | null,
  kept: RequestCardStates,
): readonly ServerRequestView[] {
  const [requests, setRequests] = useState<readonly ServerRequestView[]>([]);
  useEffect(() => {
    let live = true;
    // A widening asked from a block waits on that block's card in the tool block (SandboxBlock), and a view's tool
    // call below its view (AppCallCards), not twice.
    const mine = (request: ServerRequestView): boolean =>
      request.chatId === chatId &&
      request.kind !== 'app-tool-call' &&
      request.heldElsewhere === undefined &&
      !(request.kind === 'sandbox-widening' && request.toolCallId !== undefined);
    const off = api.serverRequests.onDidChange(({ kind, request }) => {
      if (mine(request)) setRequests((current) => applyRequestChange(current, { kind, request }, kept));
    });
    void api.serverRequests
      .list({ chatId })
      .then(({ requests: listed }) => {
        if (!live) return;
        // What arrived by event meanwhile stays; the list fills in what came before.
        setRequests((current) => applyRequestList(current, listed.filter(mine), kept));
      })
      .catch(() => undefined);
    return () => {
      live = false;
      off();
    };
  }, [api, chatId, kept]);
  return requests;
}

/** A request that starts waiting joins the list (or replaces itself); one that no longer waits leaves it and `kept`. */
export function applyRequestChange(
  current: readonly ServerRequestView[],
  { kind, request }: Pick<ServerRequestsChange, 'kind' | 'request'>,
  kept: RequestCardStates,
): readonly ServerRequestView[] {
  const others = current.filter((item) => item.id !== request.id);
  if (kind === 'waiting') return [...others, request];
  kept.forget(request.id);
  return others;
}

/**
 * The listed requests fill in what came before the events that arrived meanwhile; `kept` forgets what neither has
 * (it stopped waiting while no one listened: a reconnect, a tab opened again).
 */
export function applyRequestList(
  current: readonly ServerRequestView[],
  listed: readonly ServerRequestView[],
  kept: RequestCardStates,
): readonly ServerRequestView[] {
  const next = [...listed.filter((item) => !current.some((known) => known.id === item.id)), ...current];
  kept.retain(new Set(next.map((item) => item.id)));
  return next;
}
