import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { ServerRequestView } from '../../../../shared/server-request-views';
import { useChatContext } from '../chat-context';
import { ServerRequestCard } from './ServerRequestCard';
import { useServerRequests } from './use-server-request-cards';
import { RequestCardStates } from './request-card-state';
import { useWideningsShownElsewhere } from '../../components/widenings-shown';
import './server-request-cards.css';

/**
 * The requests a chat's tool calls made of the model or the person, inline in the running exchange below its tool
 * calls, in the chat's one scroll (docs/user/server-requests.md).
 */
export function ChatServerRequests({ requests }: { requests: readonly ServerRequestView[] }): React.JSX.Element | null {
  const { api, store } = useChatContext();
  if (requests.length === 0) return null;
  return (
    <div className="server-requests" role="group" aria-label="Requests from MCP servers">
      <Cards api={api} requests={requests} kept={store.requestCardStates} />
    </div>
  );
}

/** What the tray's cards keep while it is folded (one tray for the window). */
const trayCards = new RequestCardStates();

/**
 * "Server requests": what servers ask while no chat (or more than one) runs their tools, where the person finds it
 * from any chat. Shown only while something waits. A widening request waits on its server's Sandbox page instead while
 * that page is open, not on two cards.
 */
export function ServerRequestsTray({ api }: { api: WorkbenchApi }): React.JSX.Element | null {
  const shownElsewhere = useWideningsShownElsewhere();
  const requests = useServerRequests(api, null, trayCards).filter(
    (request) => !(request.kind === 'sandbox-widening' && shownElsewhere.has(request.serverName)),
  );
  const [open, setOpen] = useState(true);
  if (requests.length === 0) return null;
  return (
    <aside className="server-requests-tray" aria-label="Server requests" data-testid="server-requests-tray">
      <button type="button" className="server-requests-tray-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        Server requests <span className="server-requests-count">{requests.length}</span>
      </button>
      {open && (
        <div className="server-requests-tray-body">
          <p className="muted server-request-meta">
            No single chat was running this server&apos;s tools when it asked, so its requests wait here.
          </p>
          <Cards api={api} requests={requests} kept={trayCards} />
        </div>
      )}
    </aside>
  );
}

/** One card per request; a sampling request's answer stage is a new card (its own state), not the prompt's. */
function Cards({
  api,
  requests,
  kept,
}: {
  api: WorkbenchApi;
  requests: readonly ServerRequestView[];
  kept: RequestCardStates;
}): React.JSX.Element {
  return (
    <>
      {requests.map((request) => (
        <ServerRequestCard
          key={`${request.id}-${request.kind === 'sampling' ? request.stage : request.kind}`}
          api={api}
          request={request}
          kept={kept}
        />
      ))}
    </>
  );
}
