import { useEffect, useMemo, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { PendingApproval } from '../../../shared/approval';
import type { Chat } from '../../../shared/chat';
import type { ServerRequestView } from '../../../shared/server-request-views';
import { errorText } from '../../../shared/error-data';
import { Dialog } from '../components/Dialog';
import { ServerRequestCard } from '../chat/server-request-cards/ServerRequestCard';
import { RequestCardStates } from '../chat/server-request-cards/request-card-state';
import { prettyJson } from '../chat/format';
import {
  ageWords,
  answersReady,
  inboxItems,
  timeLeftWords,
  type InboxDecision,
  type InboxItem,
} from './inbox-decisions';
import './inbox.css';

/** What the inbox's server-request cards keep while it is closed (one inbox for the window), until they stop waiting. */
const inboxCards = new RequestCardStates();

/** Longer argument texts are folded, with their length, and open on request. */
const FOLD_CHARS = 600;

export interface InboxDialogProps {
  api: WorkbenchApi;
  /** Every waiting tool call (state/waiting-store.ts). */
  approvals: readonly PendingApproval[];
  /** Every server request that waits, here or held by another process (state/waiting-store.ts). */
  requests: readonly ServerRequestView[];
  chats: readonly Chat[];
  /** The item to bring into view and focus when the inbox opens (a notification's, or the oldest). */
  focusKey?: string | undefined;
  /** Shows the call's chat with its card focused (and closes the inbox). */
  openCall(approval: PendingApproval): void;
  onClose(): void;
}

/**
 * One inbox for everything that waits on the person, across chats and kinds (docs/user/approvals.md, "One inbox"):
 * tool calls, decided here one by one or selected together, and servers' requests with their full card.
 */
export function InboxDialog({
  api,
  approvals,
  requests,
  chats,
  focusKey,
  openCall,
  onClose,
}: InboxDialogProps): React.JSX.Element {
  // What a card kept is forgotten once its request no longer waits.
  useEffect(() => inboxCards.retain(new Set(requests.map((request) => request.id))), [requests]);
  const items = useMemo(() => inboxItems(approvals, requests), [approvals, requests]);
  const [decisions, setDecisions] = useState<ReadonlyMap<string, InboxDecision>>(new Map());
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const sending = useRef(new Set<string>());
  const now = useNow();
  const titleOf = (chatId: string | null): string =>
    chatId === null ? 'No chat' : (chats.find((chat) => chat.id === chatId)?.title ?? 'A chat');
  // A chat another process runs may be newer than this window's list of chats.
  const heldTitle = (chatId: string | null, process: string): string =>
    chatId === null
      ? `No chat, in ${process}`
      : (chats.find((chat) => chat.id === chatId)?.title ?? `A chat in ${process}`);

  // A decision for a call that no longer waits (answered elsewhere, timed out) is dropped.
  const live = useMemo(() => new Set(approvals.map((approval) => approval.request.toolCallId)), [approvals]);
  const { ready, undecided } = answersReady(approvals, new Map([...decisions].filter(([id]) => live.has(id))));
  useEffect(() => {
    for (const answer of ready) {
      if (sending.current.has(answer.chatId)) continue;
      sending.current.add(answer.chatId);
      api.chat
        .send({ chatId: answer.chatId, message: { role: 'approval', toolCallApprovals: answer.approvals } })
        .catch((failure: unknown) => {
          setError(errorText(failure));
          // Undecided again, as in the chat: nothing was applied.
          setDecisions((current) => {
            const next = new Map(current);
            for (const { toolCallId } of answer.approvals) next.delete(toolCallId);
            return next;
          });
        })
        .finally(() => sending.current.delete(answer.chatId));
    }
  }, [api, ready]);

  const decide = (ids: Iterable<string>, decision: InboxDecision): void => {
    setError(null);
    setDecisions((current) => {
      const next = new Map(current);
      for (const id of ids) next.set(id, decision);
      return next;
    });
    setSelected(new Set());
  };
  const toolItems = items.filter((item) => item.kind === 'tool-call');
  const toggle = (id: string): void =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Dialog
      title="Waiting for you"
      className="dialog inbox-dialog"
      onClose={onClose}
      testId="inbox"
      actions={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <p className="muted inbox-summary" role="status">
        {items.length === 0
          ? 'Nothing waits for you.'
          : `${items.length} ${items.length === 1 ? 'request waits' : 'requests wait'} for you, oldest first.`}
      </p>
      {toolItems.length > 1 && (
        <div className="inbox-bulk" role="group" aria-label="Selected calls">
          <label className="inbox-select-all">
            <input
              type="checkbox"
              checked={selected.size > 0 && selected.size === toolItems.length}
              onChange={(event) =>
                setSelected(
                  event.target.checked
                    ? new Set(
                        toolItems.map((item) => (item.kind === 'tool-call' ? item.approval.request.toolCallId : '')),
                      )
                    : new Set(),
                )
              }
            />
            Select all calls
          </label>
          <button
            type="button"
            className="button button-small"
            disabled={selected.size === 0}
            onClick={() => decide(selected, 'TOOL_CALL_DECISION_ALLOW_ONCE')}
          >
            Allow selected once
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            disabled={selected.size === 0}
            onClick={() => decide(selected, 'TOOL_CALL_DECISION_DENY')}
          >
            Deny selected
          </button>
        </div>
      )}
      {error && (
        <div className="notice notice-error" role="alert">
          {error}
        </div>
      )}
      <ul className="inbox-list" aria-label="Waiting requests">
        {items.map((item) => (
          <InboxRow
            key={item.key}
            item={item}
            api={api}
            kept={inboxCards}
            focus={item.key === focusKey}
            chatTitle={
              item.kind === 'server-request' && item.request.heldElsewhere
                ? heldTitle(item.request.chatId, item.request.heldElsewhere.process)
                : titleOf(item.kind === 'tool-call' ? item.approval.chatId : item.request.chatId)
            }
            now={now}
            decision={item.kind === 'tool-call' ? decisions.get(item.approval.request.toolCallId) : undefined}
            othersUndecided={item.kind === 'tool-call' ? (undecided.get(item.approval.chatId) ?? 0) : 0}
            selected={item.kind === 'tool-call' && selected.has(item.approval.request.toolCallId)}
            selectable={toolItems.length > 1}
            onToggle={toggle}
            onDecide={decide}
            onOpen={openCall}
          />
        ))}
      </ul>
    </Dialog>
  );
}

interface RowProps {
  item: InboxItem;
  api: WorkbenchApi;
  /** What the servers' request cards keep while the inbox is open (request-card-state.ts). */
  kept: RequestCardStates;
  focus: boolean;
  chatTitle: string;
  now: number;
  decision: InboxDecision | undefined;
  othersUndecided: number;
  selected: boolean;
  selectable: boolean;
  onToggle(id: string): void;
  onDecide(ids: Iterable<string>, decision: InboxDecision): void;
  onOpen(approval: PendingApproval): void;
}

function InboxRow(props: RowProps): React.JSX.Element {
  const { item, chatTitle, now, focus } = props;
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (!focus) return;
    // After the dialog opened (its showModal runs after this effect and focuses its first control).
    const frame = requestAnimationFrame(() => {
      row.current?.scrollIntoView({ block: 'nearest' });
      row.current?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [focus]);
  const meta = (
    <p className="inbox-meta small muted">
      <span>{chatTitle}</span> · <span>{ageWords(item.createdAt, now)}</span>
      {item.kind === 'tool-call' && <> · {timeLeftWords(item.approval.expiresAt, now)}</>}
    </p>
  );
  if (item.kind === 'server-request') {
    return (
      <li ref={row} tabIndex={-1} className="inbox-item" data-testid="inbox-item" aria-label={requestLabel(item)}>
        {meta}
        <ServerRequestCard api={props.api} request={item.request} kept={props.kept} />
      </li>
    );
  }
  const { approval } = item;
  const { request } = approval;
  const id = request.toolCallId;
  const args = prettyJson(request.args);
  const folded = args.length > FOLD_CHARS;
  const label = `${request.serverName}.${request.toolName} in ${chatTitle}`;
  return (
    <li ref={row} tabIndex={-1} className="inbox-item" data-testid="inbox-item" aria-label={label}>
      <div className="inbox-item-head">
        {props.selectable && (
          <input
            type="checkbox"
            aria-label={`Select ${label}`}
            checked={props.selected}
            disabled={props.decision !== undefined}
            onChange={() => props.onToggle(id)}
          />
        )}
        <span className="inbox-kind">Tool call</span>
        <strong className="mono">
          {request.serverName} · {request.toolName}
        </strong>
      </div>
      {meta}
      <p className="inbox-why small">{request.decision.reason}</p>
      {folded ? (
        <details className="inbox-args">
          <summary>Arguments ({args.length.toLocaleString()} characters)</summary>
          <pre className="mono">{args}</pre>
        </details>
      ) : (
        <pre className="inbox-args mono" aria-label="Arguments">
          {args}
        </pre>
      )}
      <div className="inbox-actions">
        {props.decision === undefined ? (
          <>
            <button
              type="button"
              className="button button-primary button-small"
              onClick={() => props.onDecide([id], 'TOOL_CALL_DECISION_ALLOW_ONCE')}
            >
              Allow once
            </button>
            <button
              type="button"
              className="button button-small button-danger"
              onClick={() => props.onDecide([id], 'TOOL_CALL_DECISION_DENY')}
            >
              Deny
            </button>
          </>
        ) : (
          <span className="inbox-decided small" role="status">
            {props.decision === 'TOOL_CALL_DECISION_DENY' ? 'Deny' : 'Allow once'}
            {props.othersUndecided > 0
              ? ` — sent with the ${props.othersUndecided === 1 ? 'other call' : `${props.othersUndecided} other calls`} of this chat once you decide ${props.othersUndecided === 1 ? 'it' : 'them'}`
              : ' — sending…'}
          </span>
        )}
        <button type="button" className="button button-small" onClick={() => props.onOpen(approval)}>
          Open in chat
        </button>
      </div>
    </li>
  );
}

function requestLabel(item: Extract<InboxItem, { kind: 'server-request' }>): string {
  const { request } = item;
  const held = request.heldElsewhere
    ? `, held by ${request.heldElsewhere.process} (pid ${request.heldElsewhere.pid})`
    : '';
  if (request.kind === 'app-tool-call')
    return `${request.serverName}.${request.toolName}, requested by the app of ${request.serverName}${held}`;
  return `${request.kind === 'sampling' ? 'Sampling request' : 'Request for your input'} from ${request.serverName}${held}`;
}

/** The clock, once a second, for the ages and the time left. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
