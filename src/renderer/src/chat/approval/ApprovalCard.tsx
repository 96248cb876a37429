import { lazy, Suspense, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ToolCallDecision, ToolCallRequest } from '../../../../shared/approval';
import { DISPOSITION_WORDS, REMEMBER_WORDS } from '../../../../shared/decisions';
import { CardFrame, CardWarning } from './CardFrame';
import { useChatContext } from '../chat-context';
import type { ArgsEdit, Draft } from '../chat-store';
import { prettyJson } from '../format';
import { Countdown } from './Countdown';
import { DefinitionChange } from './DefinitionChange';
import { foldArguments, foldedWords } from './fold-arguments';
import { KeepsAsking } from './KeepsAsking';
import { WhyItAsks } from './WhyItAsks';
import { RememberMenu } from './RememberMenu';
import { riskBadges } from './risk';
import { announce } from '../../state/announcer';
import { useSteadyClicks } from '../steady-clicks';
import { useCardState } from './card-state';

/** The argument editor loads on demand: a card asks for it as it mounts, so it is there by the time someone edits. */
const loadArgumentsEditor = () => import('./ArgumentsEditor');
const ArgumentsEditor = lazy(() => loadArgumentsEditor().then((module) => ({ default: module.ArgumentsEditor })));

export interface ApprovalCardProps {
  request: ToolCallRequest;
  draft: Draft | undefined;
  /** The person's edit of the arguments (kept by the store, so Allow all once sends it too). */
  edit: ArgsEdit | undefined;
  /** Why the last approval message was refused for this call (a deny rule refused its edit); it waits again. */
  refusal?: string | undefined;
  /** When the wait ends as a timeout; null or undefined: never. */
  expiresAt: number | null | undefined;
  /** Every waiting call is answered and the approval message is on its way: no more undo. */
  locked: boolean;
  focusNonce: number | undefined;
}

/** Seed 000's permission prompt, inline where the call belongs in the reply, with seeds 001/004's additions. */
export function ApprovalCard({
  request,
  draft,
  edit,
  refusal,
  expiresAt,
  locked,
  focusNonce,
}: ApprovalCardProps): React.JSX.Element {
  const { store, trustedServers } = useChatContext();
  const card = useRef<HTMLElement>(null);
  const titleId = useId();
  const argsId = useId();
  const blockedId = useId();
  const editor = useRef<HTMLDivElement>(null);
  // Kept by the store: the list unmounts the card when it is scrolled out of view (card-state.ts).
  const id = request.toolCallId;
  const [unfolded, setUnfolded] = useCardState(id, 'unfolded', false);
  const [editing, setEditing] = useCardState(id, 'editing', false);
  const edited = edit?.ok ? edit.args : null;
  // While the edit is invalid nothing can allow this call (the store refuses too): the editor stays open with the problem.
  const editError = edit && !edit.ok ? edit.error : null;
  const [denying, setDenying] = useCardState(id, 'denying', false);
  const [reason, setReason] = useCardState(id, 'reason', '');
  const [reasonAsked, setReasonAsked] = useState(false);
  const server = request.serverName;
  const tool = request.toolName;
  useEffect(() => void loadArgumentsEditor(), []);
  // A click decides only what it was aimed at, not a button that moved under a still pointer (steady-clicks.ts).
  const steady = useSteadyClicks();
  const badges = riskBadges(request.annotations, trustedServers.has(server));
  const shownArgs = draft?.editedArgs ?? edited ?? request.args;
  const folded = useMemo(() => foldArguments(shownArgs), [shownArgs]);

  /** To the first field with a problem, whose description the screen reader then reads. */
  const focusProblem = (): void => {
    queueMicrotask(() => editor.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
  };
  const showProblem = (): void => {
    setEditing(true);
    focusProblem();
  };

  const decide = (decision: ToolCallDecision, reason?: string): void => {
    if (!store.decide(request.toolCallId, { decision, ...(reason ? { reason } : {}) })) {
      if (decision !== 'TOOL_CALL_DECISION_DENY') showProblem();
      return;
    }
    // An invalid edit stays open (hidden while denied) so Undo brings back what was typed.
    if (!editError) setEditing(false);
    setDenying(false);
    // Keep the keyboard in the card so Undo (or the next card) is one Tab away.
    queueMicrotask(() => card.current?.focus());
  };

  useEffect(() => {
    if (focusNonce === undefined || !card.current) return;
    card.current.scrollIntoView({ block: 'center' });
    // Brought here because Allow all was refused for this card: straight to the problem (an invalid edit keeps the
    // editor open, so it is there).
    if (editError && !draft) focusProblem();
    else card.current.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs per focus request
  }, [focusNonce]);

  const onEdit = (result: ArgsEdit): void => {
    store.edit(
      request.toolCallId,
      result.ok && JSON.stringify(result.args) === JSON.stringify(request.args) ? null : result,
    );
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLElement>): void => {
    if (draft || event.altKey || event.ctrlKey || event.metaKey) return;
    const onCard = event.target === event.currentTarget;
    // Escape in the editor (its Form/JSON tabs are buttons too) must not throw the edit away by denying the call.
    const inEditor = event.target instanceof Node && editor.current?.contains(event.target) === true;
    const onButton = event.target instanceof HTMLButtonElement && !inEditor;
    if (event.key === 'Enter' && onCard) {
      event.preventDefault();
      decide('TOOL_CALL_DECISION_ALLOW_ONCE');
    } else if (event.key === 'Escape' && (onCard || onButton)) {
      event.preventDefault();
      decide('TOOL_CALL_DECISION_DENY');
    }
  };

  const allowBlocked = editError !== null;
  const blockedProps = allowBlocked ? { 'aria-disabled': true, 'aria-describedby': blockedId } : {};
  return (
    <CardFrame
      ref={card}
      titleId={titleId}
      title={`Allow tool call from ${server}?`}
      badges={
        <>
          {badges.map((badge) => (
            <span key={badge.label} className={`risk-badge risk-${badge.tone}`} title={badge.description}>
              {badge.label}
              {!trustedServers.has(server) && <span className="risk-claim"> · declared by the server</span>}
            </span>
          ))}
          {expiresAt && !draft && <Countdown expiresAt={expiresAt} />}
        </>
      }
      variant={draft ? 'is-decided' : undefined}
      steady={steady}
      tabIndex={0}
      aria-keyshortcuts={draft ? undefined : 'Enter Escape'}
      data-testid="approval-card"
      data-tool-call-id={request.toolCallId}
      onKeyDown={onKeyDown}
    >
      <div className="approval-run">
        <span>
          Run <strong>{tool}</strong> from {server}
        </span>
        {(edited || draft?.editedArgs) && <span className="tag">edited</span>}
        {editError && !draft && <span className="tag tag-invalid">edit not valid</span>}
      </div>
      {/* The exact arguments, in view by default; long texts folded with their length (fold-arguments.ts). */}
      <pre id={argsId} className="tool-pre approval-args" aria-label="Arguments" data-testid="approval-args">
        {unfolded ? prettyJson(shownArgs) : folded.text}
      </pre>
      {folded.folded.length > 0 && (
        <button
          type="button"
          className="chat-link approval-unfold"
          aria-controls={argsId}
          aria-expanded={unfolded}
          onClick={() => setUnfolded(!unfolded)}
        >
          {unfolded ? 'Fold long values' : `Show in full: ${foldedWords(folded.folded)}`}
        </button>
      )}
      {/* Once decided, the card keeps only what was decided (the buttons' place shows it, with Undo). */}
      {!draft && (
        <>
          <WhyItAsks request={request} chatId={store.chatId} />
          {request.description && <p className="approval-description muted">{request.description}</p>}

          {request.decision.definitionChanged && <DefinitionChange serverName={server} toolName={tool} />}
          {request.decision.identityChanged && (
            <div className="definition-changed" role="note">
              <strong>This server changed</strong>: it runs something else than when your settings for it were made, so
              it asks again.
              <dl className="identity-change">
                <dt>Was</dt>
                <dd className="mono">{request.decision.identityChanged.previous}</dd>
                <dt>Now</dt>
                <dd className="mono">{request.decision.identityChanged.current}</dd>
              </dl>
            </div>
          )}
          {request.decision.keepsAsking && <KeepsAsking text={request.decision.keepsAsking} />}

          <CardWarning />
        </>
      )}

      {editing && (
        <div ref={editor} hidden={draft !== undefined}>
          <Suspense fallback={<p className="muted">Loading the editor…</p>}>
            <ArgumentsEditor
              schema={request.inputSchema}
              toolCallId={id}
              original={request.args}
              initial={edited ?? request.args}
              onChange={onEdit}
            />
          </Suspense>
        </div>
      )}

      {draft ? (
        <div className="approval-disposition" role="status">
          <span
            className={`disposition disposition-${draft.decision === 'TOOL_CALL_DECISION_DENY' ? 'deny' : 'allow'}`}
          >
            {DISPOSITION_WORDS[draft.decision]}
          </span>
          {draft.reason && <span className="muted"> — “{draft.reason}”</span>}
          {draft.remember && (
            <span className="remember-disposition"> · and remember: {REMEMBER_WORDS[draft.remember.kind]}</span>
          )}
          {!locked && (
            <button
              type="button"
              className="chat-link"
              onClick={() => {
                store.undo(request.toolCallId);
                announce(`Undone: Run ${tool} from ${server} waits for your decision again.`);
                // The Undo button is gone with the disposition: the keyboard stays in the card, at its buttons.
                queueMicrotask(() => card.current?.focus());
              }}
              aria-label={`Undo: ${DISPOSITION_WORDS[draft.decision]}${draft.remember ? ` and ${REMEMBER_WORDS[draft.remember.kind]}` : ''} for ${tool}`}
            >
              Undo
            </button>
          )}
        </div>
      ) : denying ? (
        <form
          className="deny-reason"
          onSubmit={(event) => {
            event.preventDefault();
            decide('TOOL_CALL_DECISION_DENY', reason.trim());
          }}
        >
          <label className="visually-hidden" htmlFor={`${titleId}-reason`}>
            Why deny (optional, the model is told)
          </label>
          <input
            id={`${titleId}-reason`}
            type="text"
            maxLength={2000}
            // Only when the person opens it: not when the card mounts again as it is scrolled back into view.
            autoFocus={reasonAsked}
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
          {/* aria-disabled, not disabled: the buttons stay in the Tab order so a screen reader reaches them and hears why. */}
          <button
            type="button"
            className="button"
            {...blockedProps}
            onClick={() => decide('TOOL_CALL_DECISION_ALLOW_SESSION')}
            title="Allow this tool for the rest of this chat"
          >
            Allow for this chat
          </button>
          <button
            type="button"
            className="button button-primary"
            {...blockedProps}
            onClick={() => decide('TOOL_CALL_DECISION_ALLOW_ONCE')}
            title="Allow once (Enter)"
          >
            Allow once
          </button>
          <button
            type="button"
            className="button button-danger-soft"
            onClick={() => decide('TOOL_CALL_DECISION_DENY')}
            title="Deny (Escape)"
          >
            Deny
          </button>
          <span className="approval-secondary">
            {/* Done editing keeps an invalid edit open, at its problem: closing it would hide why Allow does nothing. */}
            <button
              type="button"
              className="chat-link"
              aria-expanded={editing}
              onClick={() => (editing && editError ? showProblem() : setEditing(!editing))}
            >
              {editing ? 'Done editing' : 'Edit arguments'}
            </button>
            {edit && editing && (
              <button
                type="button"
                className="chat-link"
                onClick={() => {
                  store.edit(request.toolCallId, null);
                  setEditing(false);
                }}
                title="Back to the arguments the model sent"
              >
                Reset
              </button>
            )}
            <button
              type="button"
              className="chat-link"
              onClick={() => {
                setReasonAsked(true);
                setDenying(true);
              }}
            >
              Deny with reason…
            </button>
            <RememberMenu store={store} request={request} blocked={allowBlocked} />
          </span>
        </div>
      )}
      {refusal && !draft && (
        <p className="field-problem approval-refused" role="alert">
          {refusal}
        </p>
      )}
      {allowBlocked && !draft && !denying && (
        <p className="field-problem approval-blocked" id={blockedId}>
          Fix the arguments first: {editError}
        </p>
      )}
    </CardFrame>
  );
}
