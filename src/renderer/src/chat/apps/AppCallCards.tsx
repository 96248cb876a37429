import { useEffect, useState } from 'react';
import { errorText } from '../../../../shared/error-data';
import type { AppToolCallView } from '../../../../shared/mcp-apps';
import type { WorkbenchApi } from '../../../../shared/api';
import { prettyJson } from '../format';

/**
 * The tool calls a view asked for that wait for the person (docs/user/mcp-apps.md#what-a-view-may-ask): each card says
 * who asked — the app of the server, not the model — what it would run, and why the policy asks; Allow runs it once,
 * Deny refuses it and the view is told so.
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
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const mine = (call: AppToolCallView): boolean => call.chatId === chatId && call.viewCallId === viewCallId;
    const stop = api.apps.onDidChange((change) => {
      if (!mine(change.call)) return;
      setCalls((now) =>
        change.kind === 'waiting'
          ? [...now.filter((call) => call.id !== change.call.id), change.call]
          : now.filter((call) => call.id !== change.call.id),
      );
    });
    api.apps.pending({ chatId }).then(
      ({ calls: waiting }) =>
        live &&
        setCalls((now) => [
          ...now,
          ...waiting.filter((call) => mine(call) && !now.some((known) => known.id === call.id)),
        ]),
      () => {},
    );
    return () => {
      live = false;
      stop();
    };
  }, [api, chatId, viewCallId]);
  if (calls.length === 0 && !problem) return null;
  const decide = (call: AppToolCallView, action: 'allow' | 'deny'): void => {
    setProblem(null);
    api.apps.decide({ id: call.id, action }).catch((error: unknown) => setProblem(errorText(error)));
  };
  return (
    <div className="app-call-cards">
      {problem && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
      {calls.map((call) => (
        <section
          key={call.id}
          className="approval-card app-call-card"
          data-testid="app-call-card"
          aria-label={`Request from the app of ${call.serverName}`}
        >
          <p className="app-call-title">
            Run <strong>{call.toolName}</strong> from {call.serverName}?
          </p>
          <p className="app-call-by">Requested by the app of {call.serverName}, not by the model.</p>
          <p className="muted small">Why it asks: {call.reason}</p>
          <pre className="tool-pre">{prettyJson(call.args)}</pre>
          <div className="app-call-actions">
            <button type="button" className="button button-primary" onClick={() => decide(call, 'allow')}>
              Allow once
            </button>
            <button type="button" className="button button-danger-soft" onClick={() => decide(call, 'deny')}>
              Deny
            </button>
          </div>
        </section>
      ))}
    </div>
  );
}
