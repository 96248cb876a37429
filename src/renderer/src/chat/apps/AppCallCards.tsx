import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { AppToolCallView, ServerRequestView } from '../../../../shared/server-request-views';
import { ServerRequestCard } from '../server-request-cards/ServerRequestCard';
import { RequestCardStates } from '../server-request-cards/request-card-state';

const isCallOf =
  (chatId: string, viewCallId: string) =>
  (request: ServerRequestView): request is AppToolCallView =>
    request.kind === 'app-tool-call' && request.chatId === chatId && request.viewCallId === viewCallId;

/**
 * The tool calls a view asked for that wait for the person, below the view (docs/user/mcp-apps.md#what-a-view-may-ask):
 * the same waiting requests as "Waiting for you" lists (`serverRequests.*`), each card saying who asked — the app of
 * the server, not the model — what it would run, and why the policy asks.
 */
export function AppCallCards({
  api,
  chatId,
  viewCallId,
}: {
  api: WorkbenchApi;
  chatId: string;
  viewCallId: string;
}): React.JSX.Element | null {
  const [calls, setCalls] = useState<AppToolCallView[]>([]);
  // Only an answer's problem to keep, for as long as the view's calls are shown.
  const [kept] = useState(() => new RequestCardStates());
  useEffect(() => {
    let live = true;
    const mine = isCallOf(chatId, viewCallId);
    const stop = api.serverRequests.onDidChange(({ kind, request }) => {
      if (!mine(request)) return;
      setCalls((now) =>
        kind === 'waiting'
          ? [...now.filter((call) => call.id !== request.id), request]
          : now.filter((call) => call.id !== request.id),
      );
    });
    api.serverRequests.list({ chatId }).then(
      ({ requests }) =>
        live &&
        setCalls((now) => [
          ...now,
          ...requests.filter(mine).filter((call) => !now.some((known) => known.id === call.id)),
        ]),
      () => {},
    );
    return () => {
      live = false;
      stop();
    };
  }, [api, chatId, viewCallId]);
  if (calls.length === 0) return null;
  return (
    <div className="app-call-cards">
      {calls.map((call) => (
        <ServerRequestCard key={call.id} api={api} request={call} kept={kept} />
      ))}
    </div>
  );
}
