import { useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { errorText } from '../../../shared/error-data';
import { grantForBlock, type SandboxWidening } from '../../../shared/sandbox';
import type { SandboxWideningRequestView } from '../../../shared/server-request-views';
import './sandbox.css';

/** A block with what was tried: the only kind the person can widen from (docs/user/sandbox.md#widening). */
export interface WidenableBlock {
  kind: 'read' | 'write' | 'connect' | 'env';
  target: string;
  text: string;
}

const ALLOW_WORDS: Record<WidenableBlock['kind'], string> = {
  read: 'Allow reading this path…',
  write: 'Allow writing this folder…',
  connect: 'Allow this host…',
  env: 'Allow this variable…',
};

/**
 * One block of a contained server, with "Allow…": a widening request that waits until the person allows or denies it
 * on the card it shows, which says exactly what it grants. Nothing is granted by the first click.
 */
export function SandboxBlockLine({
  api,
  serverName,
  block,
  chatId,
  toolCallId,
  suffix,
  waiting,
}: {
  api: WorkbenchApi;
  serverName: string;
  block: WidenableBlock | { text: string };
  chatId?: string | undefined;
  toolCallId?: string | undefined;
  /** Shown after the sentence: when it happened, during which call. */
  suffix?: string | undefined;
  /** A request made from this block earlier that still waits (after a reload): its card is shown again. */
  waiting?: SandboxWidening | undefined;
}): React.JSX.Element {
  const [made, setWidening] = useState<SandboxWidening | null>(null);
  const widening = made ?? waiting ?? null;
  const [problem, setProblem] = useState<string | null>(null);
  const widenable = 'kind' in block ? block : null;
  return (
    <li className="sandbox-block" data-testid="sandbox-block">
      <div className="sandbox-block-line">
        <span className="sandbox-block-text">
          {block.text}
          {suffix && <span className="muted"> {suffix}</span>}
        </span>
        {widenable && !widening && (
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setProblem(null);
              api.serverRequests
                .requestWidening({
                  name: serverName,
                  grant: grantForBlock(widenable),
                  ...(chatId ? { chatId } : {}),
                  ...(toolCallId ? { toolCallId } : {}),
                })
                .then(
                  (view) => setWidening(asWidening(view)),
                  (failure: unknown) => setProblem(errorText(failure)),
                );
            }}
          >
            {ALLOW_WORDS[widenable.kind]}
          </button>
        )}
      </div>
      {problem && (
        <p className="sandbox-problem" role="alert">
          {problem}
        </p>
      )}
      {widening && <WideningCard api={api} widening={widening} onDecided={setWidening} />}
    </li>
  );
}

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

/** A waiting widening request: what it grants, Allow and Deny; once decided, what became of it. */
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
      <p className="sandbox-widening-what">
        <strong>{widening.description}</strong>
      </p>
      <p className="muted small">
        Recorded in the audit log; you can take it back in Settings → MCP servers → {widening.serverName} → Sandbox.
      </p>
      {problem && (
        <p className="sandbox-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="sandbox-widening-actions">
        <button type="button" className="button button-primary" disabled={busy} onClick={() => decide('allow')}>
          Allow
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => decide('deny')}>
          Deny
        </button>
      </div>
    </div>
  );
}
