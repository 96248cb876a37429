import { useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { errorText } from '../../../shared/error-data';
import { grantForBlock, type SandboxWidening } from '../../../shared/sandbox';
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
}: {
  api: WorkbenchApi;
  serverName: string;
  block: WidenableBlock | { text: string };
  chatId?: string | undefined;
  toolCallId?: string | undefined;
  /** Shown after the sentence: when it happened, during which call. */
  suffix?: string | undefined;
}): React.JSX.Element {
  const [widening, setWidening] = useState<SandboxWidening | null>(null);
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
              api.mcp
                .sandboxRequestWidening({
                  name: serverName,
                  grant: grantForBlock(widenable),
                  ...(chatId ? { chatId } : {}),
                  ...(toolCallId ? { toolCallId } : {}),
                })
                .then(setWidening, (failure: unknown) => setProblem(errorText(failure)));
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
    api.mcp.sandboxDecideWidening({ id: widening.id, decision }).then(
      (decided) => {
        setBusy(false);
        onDecided(decided);
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
