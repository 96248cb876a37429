import { useEffect, useId, useRef, useState } from 'react';
import type { ToolCallDecision, ToolCallRequest } from '../../../../shared/approval';
import { APPROVAL_WARNING, DISPOSITION_WORDS } from '../../../../shared/decisions';
import { WarningIcon } from '../../components/icons';
import { useChatContext } from '../chat-context';
import type { Draft } from '../chat-store';
import { prettyJson } from '../format';
import { ArgumentsEditor } from './ArgumentsEditor';
import { Countdown } from './Countdown';
import { DefinitionChange } from './DefinitionChange';
import { riskBadges } from './risk';


export interface ApprovalCardProps {
  request: ToolCallRequest;
  draft: Draft | undefined;
  /** When the wait ends as a timeout; null or undefined: never. */
  expiresAt: number | null | undefined;
  /** Every waiting call is answered and the approval message is on its way: no more undo. */
  locked: boolean;
  focusNonce: number | undefined;
}

/** Seed 000's permission prompt, inline where the call belongs in the reply, with seeds 001/004's additions. */
export function ApprovalCard({ request, draft, expiresAt, locked, focusNonce }: ApprovalCardProps): React.JSX.Element {
  const { store, trustedServers } = useChatContext();
  const card = useRef<HTMLElement>(null);
  const titleId = useId();
  const argsId = useId();
  const [showArgs, setShowArgs] = useState(false);
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState<Record<string, unknown> | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const server = request.serverName;
  const tool = request.toolName;
  const badges = riskBadges(request.annotations, trustedServers.has(server));

  useEffect(() => {
    if (focusNonce === undefined || !card.current) return;
    card.current.scrollIntoView({ block: 'center' });
    card.current.focus();
  }, [focusNonce]);

  const decide = (decision: ToolCallDecision, extra: Partial<Draft> = {}): void => {
    if (decision !== 'TOOL_CALL_DECISION_DENY' && editError) return;
    store.decide(request.toolCallId, {
      decision,
      ...(decision !== 'TOOL_CALL_DECISION_DENY' && edited ? { editedArgs: edited } : {}),
      ...extra,
    });
    setEditing(false);
    setDenying(false);
    // Keep the keyboard in the card so Undo (or the next card) is one Tab away.
    queueMicrotask(() => card.current?.focus());
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLElement>): void => {
    if (draft || event.altKey || event.ctrlKey || event.metaKey) return;
    const onCard = event.target === event.currentTarget;
    const onButton = event.target instanceof HTMLButtonElement;
    if (event.key === 'Enter' && onCard) {
      event.preventDefault();
      decide('TOOL_CALL_DECISION_ALLOW_ONCE');
    } else if (event.key === 'Escape' && (onCard || onButton)) {
      event.preventDefault();
      decide('TOOL_CALL_DECISION_DENY');
    }
  };

  const allowBlocked = editing && editError !== null;
  return (
    <section
      ref={card}
      className={`approval-card${draft ? ' is-decided' : ''}`}
      aria-labelledby={titleId}
      tabIndex={0}
      aria-keyshortcuts={draft ? undefined : 'Enter Escape'}
      data-testid="approval-card"
      data-tool-call-id={request.toolCallId}
      onKeyDown={onKeyDown}
    >
      <header className="approval-head">
        <h3 id={titleId} className="approval-title">
          Allow tool call from {server}?
        </h3>
        <div className="approval-badges">
          {badges.map((badge) => (
            <span key={badge.label} className={`risk-badge risk-${badge.tone}`} title={badge.description}>
              {badge.label}
              {!trustedServers.has(server) && <span className="risk-claim"> · declared by the server</span>}
            </span>
          ))}
          {expiresAt && !draft && <Countdown expiresAt={expiresAt} />}
        </div>
      </header>

      <div className="approval-run">
        <button type="button" className="run-disclosure" aria-expanded={showArgs} aria-controls={argsId} onClick={() => setShowArgs(!showArgs)}>
          <span className="run-disclosure-arrow" aria-hidden="true">
            ▸
          </span>
          Run <strong>{tool}</strong> from {server}
        </button>
        {(edited || draft?.editedArgs) && <span className="tag">edited</span>}
      </div>
      {showArgs && (
        <pre id={argsId} className="tool-pre approval-args" aria-label="Arguments">
          {prettyJson(draft?.editedArgs ?? edited ?? request.args)}
        </pre>
      )}
      {/* Once decided, the card keeps only what was decided (the buttons' place shows it, with Undo). */}
      {!draft && (
        <>
          {request.description && <p className="approval-description muted">{request.description}</p>}

          {request.decision.definitionChanged && <DefinitionChange serverName={server} toolName={tool} />}

          <p className="approval-warning">
            <WarningIcon size={14} /> {APPROVAL_WARNING}
          </p>
          <p className="approval-review">
            <strong>Review each action carefully before approving</strong>
          </p>
        </>
      )}

      {editing && !draft && (
        <ArgumentsEditor
          schema={request.inputSchema}
          original={request.args}
          initial={edited ?? request.args}
          onChange={(result) => {
            if (result.ok) {
              setEditError(null);
              setEdited(JSON.stringify(result.args) === JSON.stringify(request.args) ? null : result.args);
            } else setEditError(result.error);
          }}
        />
      )}

      {draft ? (
        <div className="approval-disposition" role="status">
          <span className={`disposition disposition-${draft.decision === 'TOOL_CALL_DECISION_DENY' ? 'deny' : 'allow'}`}>{DISPOSITION_WORDS[draft.decision]}</span>
          {draft.reason && <span className="muted"> — “{draft.reason}”</span>}
          {!locked && (
            <button type="button" className="chat-link" onClick={() => store.undo(request.toolCallId)} aria-label={`Undo: ${DISPOSITION_WORDS[draft.decision]} for ${tool}`}>
              Undo
            </button>
          )}
        </div>
      ) : denying ? (
        <form
          className="deny-reason"
          onSubmit={(event) => {
            event.preventDefault();
            decide('TOOL_CALL_DECISION_DENY', reason.trim() ? { reason: reason.trim() } : {});
          }}
        >
          <label className="visually-hidden" htmlFor={`${titleId}-reason`}>
            Why deny (optional, the model is told)
          </label>
          <input
            id={`${titleId}-reason`}
            type="text"
            maxLength={2000}
            autoFocus
            placeholder="Why? (optional — the model is told)"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.stopPropagation();
                setDenying(false);
              }
            }}
          />
          <button type="submit" className="button button-danger-soft">
            Deny
          </button>
          <button type="button" className="button" onClick={() => setDenying(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="approval-actions">
          <button type="button" className="button" disabled={allowBlocked} onClick={() => decide('TOOL_CALL_DECISION_ALLOW_SESSION')} title="Allow this tool for the rest of this chat">
            Allow for this chat
          </button>
          <button type="button" className="button button-primary" disabled={allowBlocked} onClick={() => decide('TOOL_CALL_DECISION_ALLOW_ONCE')} title="Allow once (Enter)">
            Allow once
          </button>
          <button type="button" className="button button-danger-soft" onClick={() => decide('TOOL_CALL_DECISION_DENY')} title="Deny (Escape)">
            Deny
          </button>
          <span className="approval-secondary">
            <button type="button" className="chat-link" aria-expanded={editing} onClick={() => setEditing(!editing)}>
              {editing ? 'Done editing' : 'Edit arguments'}
            </button>
            {edited && editing && (
              <button
                type="button"
                className="chat-link"
                onClick={() => {
                  setEdited(null);
                  setEditError(null);
                  setEditing(false);
                }}
              >
                Reset
              </button>
            )}
            <button type="button" className="chat-link" onClick={() => setDenying(true)}>
              Deny with reason…
            </button>
          </span>
        </div>
      )}
      {allowBlocked && !draft && <p className="field-problem approval-blocked">Fix the arguments to allow this call: {editError}</p>}
    </section>
  );
}
