import { useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { errorText } from '../../../shared/error-data';
import type { SandboxWidening } from '../../../shared/sandbox';
import type { SandboxWideningRequestView } from '../../../shared/server-request-views';
import { WarningIcon } from './icons';
import './sandbox.css';

/** A widening request as `serverRequests.*` shows it, as the card keeps it: waiting until decided here. */
export function asWidening(view: SandboxWideningRequestView): SandboxWidening {
  return {
    id: view.id,
    serverName: view.serverName,
    grant: view.grant,
    description: view.description,
    chatId: view.chatId,
    ...(view.toolCallId ? { toolCallId: view.toolCallId } : {}),
    createdAt: view.createdAt,
    status: 'pending',
  };
}

/**
 * What a widening request grants and its Allow and Deny (docs/user/sandbox.md#widening): the one body of every widening
 * card, on a block, in Settings and among the server requests.
 */
export function WideningBody({
  serverName,
  description,
  busy,
  problem,
  onDecide,
}: {
  serverName: string;
  description: string;
  busy: boolean;
  problem: string | null;
  onDecide(decision: 'allow' | 'deny'): void;
}): React.JSX.Element {
  return (
    <>
      <p className="sandbox-widening-what">
        <strong>{description}</strong>
      </p>
      <p className="sandbox-widening-note">
        <WarningIcon size={14} /> The server keeps this access until you take it back (Settings → MCP servers →{' '}
        {serverName} → Sandbox, or <code>workbench servers sandbox</code>). Recorded in the audit log.
      </p>
      {problem && (
        <p className="sandbox-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="sandbox-widening-actions">
        <button type="button" className="button button-primary" disabled={busy} onClick={() => onDecide('allow')}>
          Allow
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => onDecide('deny')}>
          Deny
        </button>
      </div>
    </>
  );
}

/** A waiting widening request where it was asked: what it grants, Allow and Deny; once decided, what became of it. */
export function WideningCard({
  api,
  widening,
  onDecided,
}: {
  api: WorkbenchApi;
  widening: SandboxWidening;
  onDecided(widening: SandboxWidening): void;
}): React.JSX.Element {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const decide = (decision: 'allow' | 'deny'): void => {
    setBusy(true);
    setProblem(null);
    // A server request like any other: decided through serverRequests.decide (docs/user/sandbox.md#widening).
    api.serverRequests
      .decide({ id: widening.id, decision: { action: decision === 'allow' ? 'allow-once' : 'deny' } })
      .then(
        () => {
          setBusy(false);
          onDecided({ ...widening, status: decision === 'allow' ? 'allow_once' : 'deny' });
        },
        (failure: unknown) => {
          setBusy(false);
          setProblem(errorText(failure));
        },
      );
  };
  if (widening.status !== 'pending') {
    return (
      <p className="sandbox-widening-done" role="status" data-testid="sandbox-widening-done">
        {widening.status === 'allow_once'
          ? `Allowed: ${widening.description}. The server restarts with its new profile.`
          : `Denied: ${widening.description}. Nothing was granted.`}
      </p>
    );
  }
  return (
    <div className="sandbox-widening" role="group" aria-label="Widen the sandbox" data-testid="sandbox-widening">
      <WideningBody
        serverName={widening.serverName}
        description={widening.description}
        busy={busy}
        problem={problem}
        onDecide={decide}
      />
    </div>
  );
}
