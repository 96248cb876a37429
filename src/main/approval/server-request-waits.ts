import { randomUUID } from 'node:crypto';
import type { ChatGrant } from '../../shared/approval';
import { RESTART_WORDS, SERVER_REQUEST_ACTION_WORDS } from '../../shared/decisions';
import type { HeldRequestView, WaitingServerRequestResolution } from '../../shared/server-request-views';
import type { AuditRecorder, DecisionRecord, PolicyChangeActor, ServerRequestRecord } from '../audit/audit-log';
import { appCallRecord } from '../mcp/app-call-records';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { ChatApprovalStore } from './chat-approval-store';
import type { PendingStore, StoredServerRequest, WaitingDeadline } from './pending-store';
import { grantChange } from './policy-changes';
import { isSamplingGrant, serverRequestRecord } from './server-request-records';

/**
 * A server's sampling and elicitation requests, and the tool calls its MCP Apps view asks for (docs/user/mcp-apps.md),
 * in the one pending store (docs/dev/architecture.md "One engine";
 * docs/user/server-requests.md). Part of the pending approvals: the same store, the same timer owner, the same claim
 * (the resolution, its audit rows and an "Allow for this chat" grant with its policy row commit in ONE transaction),
 * and grants kept with the tool calls' grants (they survive a restart, are listed and can be revoked).
 *
 * A server's request is held open by the process connected to the server, so only that process answers it: each
 * row names its owner. A request whose owner is gone (the app ended while it waited) cannot be answered any more; the
 * next start resolves it `cancelled`, by the system, with `RESTART_WORDS` as its reason and its audit row.
 */
export interface ServerRequestWaits {
  /** Keeps the request waiting for the person, arms its timeout, and announces it. */
  add(request: HeldRequestView): void;
  /** The requests this process holds that wait, oldest first; of one chat (null: from no chat) when given. */
  list(chatId?: string | null): HeldRequestView[];
  /**
   * The tool calls MCP Apps views asked for that wait, held by any process still running (a view's call is answered
   * in the app that shows the view; `workbench approvals list` shows them all), oldest first.
   */
  appCalls(chatId?: string | null): HeldRequestView[];
  /** The request waiting by this id in this process; throws `not_found`. */
  get(id: string): HeldRequestView;
  /**
   * Claims the waiting request's resolution and commits its audit rows — and the grant, with its policy row — in ONE
   * transaction; then announces it. Throws `not_found` when it was resolved meanwhile (nothing is recorded then).
   */
  resolve(
    id: string,
    resolution: Omit<WaitingServerRequestResolution, 'decidedAt'>,
    records: readonly (DecisionRecord | ServerRequestRecord)[],
    grant?: ChatGrant,
  ): void;
  /** Whether the person allowed this server's sampling for the chat ("Allow for this chat", kept as a chat grant). */
  grantedInChat(chatId: string, serverName: string): boolean;
  /** A request's timeout came: the flow that holds it resolves it (a listener ignores ids it does not hold). Returns the removal. */
  onDue(listener: (id: string) => void): () => void;
  dispose(): void;
}

export interface ServerRequestWaitsDependencies {
  store: PendingStore;
  chatStore: ChatApprovalStore;
  audit: AuditRecorder;
  events: EventHub;
  actor: PolicyChangeActor;
  now: () => number;
  timeoutSeconds: () => number;
  /** The pending approvals' one timer owner. */
  timers: {
    arm(deadline: Omit<WaitingDeadline, 'owner'>, due: () => void): void;
    clear(view: HeldRequestView): void;
  };
  onError?: (error: unknown) => void;
}

/** The engines alive in this process, by owner token (a restart in the same process leaves its old token dead). */
const LIVE_OWNERS = new Set<string>();

/** Whether the process (and, in this process, the engine) that holds a request is still there to answer it. */
function ownerAlive(owner: string | null): boolean {
  if (owner === null) return false;
  if (LIVE_OWNERS.has(owner)) return true;
  const pid = Number(owner.split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

export function createServerRequestWaits(dependencies: ServerRequestWaitsDependencies): ServerRequestWaits {
  const { store, chatStore, audit, events, now, timers } = dependencies;
  const onError = dependencies.onError ?? (() => {});
  const owner = `${process.pid}:${randomUUID()}`;
  LIVE_OWNERS.add(owner);
  const dueListeners = new Set<(id: string) => void>();

  const ownWaiting = (id: string): StoredServerRequest | undefined => {
    const stored = store.getServerRequest(id);
    return stored && stored.status === 'pending' && stored.owner === owner ? stored : undefined;
  };

  function get(id: string): HeldRequestView {
    const stored = ownWaiting(id);
    if (!stored)
      throw new WorkbenchError(
        'not_found',
        'No server request waits by that id: it was answered, timed out or cancelled.',
        { id },
      );
    return stored.request;
  }

  const claim = (
    view: HeldRequestView,
    resolution: WaitingServerRequestResolution,
    records: readonly (DecisionRecord | ServerRequestRecord)[],
    grant?: ChatGrant,
  ): void => {
    const changes = grant ? [grantChange(grant, dependencies.actor)] : [];
    audit.recordDecisionsWith(
      records,
      () =>
        store.transaction(() => {
          if (!store.resolveServerRequest(view.id, resolution)) {
            throw new WorkbenchError(
              'not_found',
              'No server request waits by that id: it was answered, timed out or cancelled.',
              { id: view.id },
            );
          }
          if (grant) chatStore.grant(grant);
        }),
      changes,
    );
    timers.clear(view);
    if (grant) events.emit('grants.onDidChange', { kind: 'granted', grant });
    const outcome =
      resolution.actor === 'user' && resolution.action
        ? SERVER_REQUEST_ACTION_WORDS[resolution.action]
        : (resolution.reason ?? undefined);
    events.emit('serverRequests.onDidChange', { kind: 'resolved', request: view, ...(outcome ? { outcome } : {}) });
  };

  // What waited in a process that is gone cannot be answered: its server's request ended with that connection.
  for (const stored of store.waitingServerRequests()) {
    if (ownerAlive(stored.owner)) continue;
    try {
      const record =
        stored.request.kind === 'app-tool-call'
          ? appCallRecord(stored.request, 'cancelled', 'system', RESTART_WORDS)
          : serverRequestRecord(stored.request, 'cancelled', 'system', RESTART_WORDS);
      claim(
        stored.request,
        { outcome: 'cancelled', actor: 'system', action: null, reason: RESTART_WORDS, decidedAt: now() },
        [record],
      );
    } catch (error) {
      // It stays waiting, unanswerable; nothing acts on it. The next start tries again.
      onError(error);
    }
  }

  return {
    add(asked) {
      const seconds = dependencies.timeoutSeconds();
      const expiresAt = seconds > 0 ? asked.createdAt + seconds * 1000 : null;
      // The card counts down to it, as a tool call's does (docs/user/server-requests.md).
      const request = { ...asked, expiresAt };
      store.insertServerRequest(request, expiresAt, owner);
      if (expiresAt !== null) {
        timers.arm({ kind: request.kind, chatId: request.chatId, id: request.id, expiresAt }, () => {
          for (const listener of dueListeners) listener(request.id);
        });
      }
      events.emit('serverRequests.onDidChange', { kind: 'waiting', request });
    },
    list(chatId) {
      const all = store
        .waitingServerRequests()
        .filter((stored) => stored.owner === owner)
        .map((stored) => stored.request);
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    appCalls(chatId) {
      const all = store
        .waitingServerRequests()
        .filter((stored) => stored.request.kind === 'app-tool-call' && ownerAlive(stored.owner))
        .map((stored) => stored.request);
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    get,
    resolve(id, resolution, records, grant) {
      claim(get(id), { ...resolution, decidedAt: now() }, records, grant);
    },
    grantedInChat: (chatId, serverName) =>
      chatStore.grantsOf(chatId).some((grant) => isSamplingGrant(grant, serverName)),
    onDue(listener) {
      dueListeners.add(listener);
      return () => void dueListeners.delete(listener);
    },
    dispose() {
      LIVE_OWNERS.delete(owner);
      dueListeners.clear();
    },
  };
}
