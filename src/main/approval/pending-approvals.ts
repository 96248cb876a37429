import type { ApprovalResolution, PendingApproval, ToolCallApproval, ToolCallRequest } from '../../shared/approval';
import {
  AUDIT_DECISION_OF,
  RESOLUTION_OF,
  RESOLUTION_WORDS,
  rememberedDecidedBy,
  withDecisionOrigin,
  type DecisionOrigin,
} from '../../shared/decisions';
import type { AuditRecorder, DecisionRecord, PolicyChangeActor } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { ApprovalsChange, PolicyUpdate } from '../../shared/approval';
import type { ChatChange } from '../../shared/chat';
import { createEmitter, type Subscribe } from '../emitter';
import { checkSubmission, type CheckedApproval, type DenyCheck, type RememberCheck } from './approval-submission';
import type { AnswerInbox } from './answer-inbox';
import type { HolderKind } from './request-holders';
import type { ArgumentsValidator } from './arguments-validator';
import type { ChatApprovalStore } from './chat-approval-store';
import type { PendingStore, WaitingDeadline } from './pending-store';
import { grantChange } from './policy-changes';
import { createServerRequestWaits, type ServerRequestWaits } from './server-request-waits';

/**
 * The ONE engine for everything that waits on a person (docs/dev/architecture.md "One engine"): the model's tool calls,
 * per chat, and a server's sampling and elicitation requests (`serverRequests`), in one SQLite store with one timer
 * owner. Passive: it stores what waits (it survives a restart, timers included), checks answers, claims resolutions,
 * and says when something is due; it never goes on with an exchange or a server's request. The exchange coordinator
 * (chat/exchange-coordinator.ts) is its only caller for tool calls, the server-request flow
 * (chat/server-request-flow.ts) for server requests. A resolution's audit rows (and an "Allow for this chat" grant's
 * policy row) commit in the same transaction as its claim, before anything may act; only `allow_*` resolutions act.
 */
export interface PendingApprovals {
  /** A server's sampling and elicitation requests, waiting in the same store under the same timer owner. */
  readonly serverRequests: ServerRequestWaits;
  /** Keeps calls the policy asked about, starts their timeouts, and announces them. */
  add(chatId: string, exchangeId: string | undefined, requests: readonly ToolCallRequest[]): PendingApproval[];
  /** The chat's waiting calls, oldest first. */
  list(chatId: string): PendingApproval[];
  /** Every chat's waiting calls, oldest first (for a count across chats: the tray, the badge). */
  allWaiting(): PendingApproval[];
  /**
   * Applies seed 000's approval message, all or nothing: throws `invalid_input` naming each problem
   * (unknown, already decided or another chat's call, an id twice, a waiting call unanswered, edited
   * arguments that fail the tool's schema) and changes nothing. ALLOW_SESSION also grants the tool
   * for this chat, bound to its definition hash. `origin` says where the person decided when not on the card (its
   * audit row says so); every check is the same wherever they decided.
   */
  submit(chatId: string, approvals: readonly ToolCallApproval[], origin?: DecisionOrigin): ApprovalResolution[];
  /** The stop button: resolves the chat's waiting calls (of one exchange, when given) as `cancelled`. */
  cancelAll(chatId: string, exchangeId?: string): ApprovalResolution[];
  /**
   * Denies every call waiting in the chat on behalf of a front end that has no person to ask (the CLI without a
   * terminal). Recorded as `deny` by the actor `system` with `decidedBy` as the reason — never as a person's "Deny".
   */
  denyUnattended(chatId: string, decidedBy: string): ApprovalResolution[];
  /** Resolves the chat's calls whose time is up as `timeout` (called by the coordinator when told they are due). */
  expire(chatId: string): ApprovalResolution[];
  /** Tool calls that started waiting or were resolved, typed (also fanned out to the hosts as `approvals.onDidChange`). */
  readonly onDidChange: Subscribe<ApprovalsChange>;
  /** Stops the timers (the rows stay; a later start restores them). */
  dispose(): void;
}

export interface PendingApprovalsDependencies {
  store: PendingStore;
  chatStore: ChatApprovalStore;
  audit: AuditRecorder;
  events: EventHub;
  validator: ArgumentsValidator;
  /** Who makes a grant in this process (the person in the app or at the CLI): its policy row says so. */
  actor: PolicyChangeActor;
  /** The deny step of the decision pipeline, for edited arguments. */
  denyCheck: DenyCheck;
  /**
   * Remember from the card (docs/user/approvals.md): the check of an answer's `remember` against the policy in force,
   * and the policy change, saved inside the claim's transaction (after the audit rows are written, before they commit):
   * a change that cannot be saved rolls the answer back. Without it, an answer that asks to remember is refused.
   */
  remember?: { check: RememberCheck; apply(update: PolicyUpdate): void } | undefined;
  /** How long a new call waits, in seconds; 0 waits forever. Read when a call is added. */
  timeoutSeconds: () => number;
  now?: () => number;
  /** Failures that have no caller to throw to. */
  onError?: (error: unknown) => void;
  /** A call of this chat reached its timeout: the one way a timer reaches the exchange (the coordinator's `timeout` event). */
  onDue: (chatId: string) => void;
  /** The chats' typed changes: a deleted chat's timers go with it (its rows go by ON DELETE CASCADE). */
  chatChanges?: Subscribe<ChatChange> | undefined;
  /** Answers given in another process to the server requests held here, and from here to theirs (./answer-inbox.ts). */
  inbox?: AnswerInbox | undefined;
  /** What this process is, for other processes to show beside the requests it holds (./request-holders.ts). */
  holder?: HolderKind | undefined;
}

export function createPendingApprovals(dependencies: PendingApprovalsDependencies): PendingApprovals {
  const { store, chatStore, audit, events, validator, denyCheck } = dependencies;
  const now = dependencies.now ?? (() => Date.now());
  const onError = dependencies.onError ?? (() => {});
  /**
   * The one timer owner: (kind, chat, id) → the timer of a waiting request of any kind. A tool call's timer tells the
   * coordinator (`onDue`), a server request's the server-request flow (`serverRequests.onDue`).
   */
  const timers = new Map<string, { chatId: string | null; timer: ReturnType<typeof setTimeout> }>();
  const timerKey = (kind: WaitingDeadline['kind'], chatId: string | null, id: string): string =>
    `${kind}\u0000${chatId ?? ''}\u0000${id}`;

  const clearTimer = (chatId: string | null, id: string, kind: WaitingDeadline['kind'] = 'tool-call'): void => {
    const key = timerKey(kind, chatId, id);
    const entry = timers.get(key);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    timers.delete(key);
  };
  const clearChat = (chatId: string): void => {
    for (const [key, entry] of timers) {
      if (entry.chatId !== chatId) continue;
      clearTimeout(entry.timer);
      timers.delete(key);
    }
  };
  const hasTimer = (chatId: string, toolCallId: string): boolean =>
    timers.has(timerKey('tool-call', chatId, toolCallId));
  const arm = (deadline: Omit<WaitingDeadline, 'owner'>, due: () => void): void => {
    const key = timerKey(deadline.kind, deadline.chatId, deadline.id);
    clearTimer(deadline.chatId, deadline.id, deadline.kind);
    const timer = setTimeout(
      () => {
        timers.delete(key);
        try {
          due();
        } catch (error) {
          // What waits stays waiting (nothing acts); a person can still answer it.
          onError(error);
        }
      },
      Math.max(0, deadline.expiresAt - now()),
    );
    // A waiting request must not keep a CLI process alive on its own.
    timer.unref?.();
    timers.set(key, { chatId: deadline.chatId, timer });
  };
  const schedule = (approval: PendingApproval): void => {
    if (approval.expiresAt === null) return;
    const { chatId } = approval;
    arm({ kind: 'tool-call', chatId, id: approval.request.toolCallId, expiresAt: approval.expiresAt }, () =>
      dependencies.onDue(chatId),
    );
  };

  const unsubscribe =
    dependencies.chatChanges?.((change) => {
      if (change.kind === 'deleted') clearChat(change.id);
    }) ?? (() => {});
  const changes = createEmitter<ApprovalsChange>(onError);
  /** Told to the services that follow approvals (typed), and fanned out to the hosts by the hub. */
  const announce = (change: ApprovalsChange): void => {
    changes.fire(change);
    events.emit('approvals.onDidChange', change);
  };

  /**
   * Claims the resolutions and records their audit rows in ONE transaction (a call resolved meanwhile rolls back both:
   * no row for a decision that never applied); grants 'Allow for this chat'; announces them.
   */
  const resolve = (
    chatId: string,
    resolutions: ApprovalResolution[],
    records: readonly DecisionRecord[],
    grants: CheckedApproval[] = [],
    policyChanges: readonly PolicyUpdate[] = [],
  ): ApprovalResolution[] => {
    if (resolutions.length === 0) return [];
    const granted = grants.map(({ request }) => ({
      chatId,
      serverName: request.serverName,
      toolName: request.toolName,
      definitionHash: request.definitionHash,
      grantedAt: now(),
    }));
    // Each grant is a change of the chat's policy: its row commits with the decision rows and the claim (docs/user/audit-log.md).
    const changes = granted.map((grant) => grantChange(grant, dependencies.actor));
    audit.recordDecisionsWith(
      records,
      () =>
        store.transaction(() => {
          for (const resolution of resolutions) {
            if (!store.resolve(resolution)) {
              throw new WorkbenchError(
                'invalid_input',
                `Tool call '${resolution.toolCallId}' was resolved meanwhile (by another window or process); nothing was applied.`,
              );
            }
          }
          for (const grant of granted) chatStore.grant(grant);
          // Last, so that nothing before it can fail after the settings file was written.
          for (const update of policyChanges) dependencies.remember?.apply(update);
        }),
      changes,
    );
    for (const resolution of resolutions) clearTimer(chatId, resolution.toolCallId);
    for (const grant of granted) events.emit('grants.onDidChange', { kind: 'granted', grant });
    announce({ kind: 'resolved', chatId, resolutions });
    return resolutions;
  };

  const systemResolutions = (
    approvals: readonly PendingApproval[],
    outcome: 'timeout' | 'cancelled' | 'deny',
    reason: string | null = null,
  ): ApprovalResolution[] =>
    approvals.map((approval) => ({
      chatId: approval.chatId,
      exchangeId: approval.exchangeId,
      toolCallId: approval.request.toolCallId,
      serverName: approval.request.serverName,
      toolName: approval.request.toolName,
      outcome,
      actor: 'system',
      args: approval.request.args,
      edited: false,
      reason,
      decidedAt: now(),
    }));
  const systemRecords = (
    approvals: readonly PendingApproval[],
    resolutions: readonly ApprovalResolution[],
    decidedBy: (approval: PendingApproval) => string,
  ): DecisionRecord[] =>
    resolutions.map((resolution, index) => {
      const approval = approvals[index] as PendingApproval;
      return {
        chatId: resolution.chatId,
        exchangeId: resolution.exchangeId ?? undefined,
        toolCallId: resolution.toolCallId,
        serverName: resolution.serverName,
        toolName: resolution.toolName,
        definitionHash: approval.request.definitionHash,
        decision: AUDIT_DECISION_OF[resolution.outcome],
        actor: 'system',
        decidedBy: decidedBy(approval),
        args: resolution.args,
      };
    });
  const resolveSystem = (
    chatId: string,
    approvals: readonly PendingApproval[],
    outcome: 'timeout' | 'cancelled' | 'deny',
    decidedBy: (approval: PendingApproval) => string,
    reason: string | null = null,
  ) => {
    const resolutions = systemResolutions(approvals, outcome, reason);
    return resolve(chatId, resolutions, systemRecords(approvals, resolutions, decidedBy));
  };

  for (const approval of store.allWaiting()) schedule(approval);
  const serverRequests = createServerRequestWaits({
    store,
    chatStore,
    audit,
    events,
    actor: dependencies.actor,
    now,
    timeoutSeconds: dependencies.timeoutSeconds,
    onError,
    inbox: dependencies.inbox,
    holder: dependencies.holder,
    timers: {
      arm,
      clear: (view) => clearTimer(view.chatId, view.id, view.kind),
    },
  });

  return {
    serverRequests,
    onDidChange: changes.event,
    add(chatId, exchangeId, requests) {
      if (requests.length === 0) return [];
      for (const request of requests) {
        if (request.decision.outcome !== 'ask') {
          throw new Error(
            `Tool call '${request.toolCallId}' was decided '${request.decision.outcome}' by the policy; only calls it asks about wait for a person.`,
          );
        }
      }
      const createdAt = now();
      const seconds = dependencies.timeoutSeconds();
      const added: PendingApproval[] = requests.map((request) => ({
        chatId,
        exchangeId: exchangeId ?? null,
        request,
        createdAt,
        expiresAt: seconds > 0 ? createdAt + seconds * 1000 : null,
      }));
      try {
        store.insert(added);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
          throw new WorkbenchError('not_found', `No chat has the id ${chatId}.`, { id: chatId });
        if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new WorkbenchError(
            'invalid_input',
            `A tool call with one of these ids is already waiting or was decided in this chat: ${requests.map((request) => request.toolCallId).join(', ')}.`,
          );
        }
        throw error;
      }
      for (const approval of added) schedule(approval);
      announce({ kind: 'pending', chatId, approvals: added });
      return added;
    },
    list: (chatId) => store.waiting(chatId),
    allWaiting: () => store.allWaiting(),
    submit(chatId, approvals, origin) {
      const checked = checkSubmission(chatId, approvals, store, validator, denyCheck, dependencies.remember?.check);
      const resolutions = checked.map(({ approval, request, exchangeId }): ApprovalResolution => ({
        chatId,
        exchangeId,
        toolCallId: request.toolCallId,
        serverName: request.serverName,
        toolName: request.toolName,
        outcome: RESOLUTION_OF[approval.decision],
        actor: 'user',
        args: approval.editedArgs ?? request.args,
        edited: approval.editedArgs !== undefined,
        reason: approval.reason ?? null,
        decidedAt: now(),
      }));
      const records = checked.map(({ approval, request, exchangeId, remember: remembered }): DecisionRecord => ({
        chatId,
        exchangeId: exchangeId ?? undefined,
        toolCallId: request.toolCallId,
        serverName: request.serverName,
        toolName: request.toolName,
        definitionHash: request.definitionHash,
        decision: AUDIT_DECISION_OF[RESOLUTION_OF[approval.decision]],
        actor: 'user',
        decidedBy: withDecisionOrigin(
          remembered === undefined || approval.remember === undefined
            ? RESOLUTION_WORDS[RESOLUTION_OF[approval.decision]]
            : rememberedDecidedBy(approval.remember.kind, remembered.words),
          origin,
        ),
        reason: approval.reason,
        args: request.args,
        editedArgs: approval.editedArgs,
      }));
      const grants = checked.filter(({ approval }) => approval.decision === 'TOOL_CALL_DECISION_ALLOW_SESSION');
      return resolve(
        chatId,
        resolutions,
        records,
        grants,
        checked.flatMap(({ remember: remembered }) => (remembered ? [remembered.update] : [])),
      );
    },
    cancelAll(chatId, exchangeId) {
      const waiting = store
        .waiting(chatId)
        .filter((approval) => exchangeId === undefined || approval.exchangeId === exchangeId);
      return resolveSystem(chatId, waiting, 'cancelled', () => RESOLUTION_WORDS.cancelled);
    },
    denyUnattended(chatId, decidedBy) {
      return resolveSystem(chatId, store.waiting(chatId), 'deny', () => decidedBy, decidedBy);
    },
    expire(chatId) {
      const time = now();
      const waiting = store.waiting(chatId);
      const due = waiting.filter((approval) => approval.expiresAt !== null && approval.expiresAt <= time);
      // A timer that fired early (the clock was set back) leaves its call waiting, without a timer: give it one.
      for (const approval of waiting) {
        if (!due.includes(approval) && !hasTimer(chatId, approval.request.toolCallId)) schedule(approval);
      }
      return resolveSystem(
        chatId,
        due,
        'timeout',
        (approval) => `No one decided within ${duration(approval)} (approval timeout)`,
      );
    },
    dispose() {
      unsubscribe();
      serverRequests.dispose();
      for (const entry of timers.values()) clearTimeout(entry.timer);
      timers.clear();
    },
  };
}

/** "5 minutes", "90 seconds": how long the call waited. */
function duration(approval: PendingApproval): string {
  const seconds = Math.round(((approval.expiresAt ?? approval.createdAt) - approval.createdAt) / 1000);
  if (seconds % 3600 === 0 && seconds >= 3600) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0 && seconds >= 60) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}
