import type { ChatGrant } from '../../shared/approval';
import { RESTART_WORDS, SERVER_REQUEST_ACTION_WORDS } from '../../shared/decisions';
import type {
  HeldRequestView,
  ServerRequestDecision,
  WaitingServerRequestResolution,
} from '../../shared/server-request-views';
import type { AuditRecorder, DecisionRecord, PolicyChangeActor, ServerRequestRecord } from '../audit/audit-log';
import { appCallRecord } from '../mcp/app-call-records';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import { relayProblem, type AnswerInbox, type RelayOrigin } from './answer-inbox';
import type { ChatApprovalStore } from './chat-approval-store';
import type { PendingStore, StoredServerRequest, WaitingDeadline } from './pending-store';
import { grantChange } from './policy-changes';
import {
  HOLDER_LOOK_RECORD_MS,
  holderWords,
  lookedLately,
  lookedPast,
  newOwnerToken,
  ownerPid,
  type HolderKind,
} from './request-holders';
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
  /** Whether the request by this id waits in this process (its answer is applied here). */
  heldHere(id: string): boolean;
  /**
   * The requests that wait in every process still running, of every kind, oldest first, each with whether this
   * process holds it (`workbench approvals list`).
   */
  waitingAnywhere(): { request: HeldRequestView; here: boolean }[];
  /**
   * The servers' requests (sampling, forms, pages to open) that other running processes hold, oldest first, each
   * marked `heldElsewhere` with its holder's pid and what it is: the app's inbox lists them and answers them through
   * the answers inbox (docs/user/approvals.md#one-inbox). A view's tool call is listed by `appCalls`.
   */
  heldElsewhere(chatId?: string | null): HeldRequestView[];
  /**
   * Answers a request another running process holds, through the answers inbox (./answer-inbox.ts): checked here
   * (it waits, its holder runs and looked for answers lately, the answer may come from another process), written for
   * the holder, and waited for until the holder applied it or said why not — or looked for answers without taking it,
   * stopped looking or ended. Throws `not_found` (nothing by that id), `conflict` (decided, its holder ended, or the
   * process its record names does not answer), `invalid_input` (an answer only the card gives), `unavailable` (the
   * holder did not take it) or the holder's refusal.
   */
  relay(id: string, decision: ServerRequestDecision): Promise<void>;
  /**
   * Why the request by this id cannot be answered (`not_found`: nothing by that id; `conflict`: decided, its holder
   * ended, or the process its record names does not answer), or undefined while it waits in a process that answers.
   */
  whyNotAnswerable(id: string): WorkbenchError | undefined;
  /** The one step of `relay` that writes the answer, after its checks; returns the answer's id (for `relayed`). */
  sendAnswer(id: string, decision: ServerRequestDecision): string;
  /** How an answer sent with `sendAnswer` ended: undefined while the holder has not applied it yet. */
  relayed(answerId: string): { applied: true } | { applied: false; why: string } | undefined;
  /**
   * The process that holds requests applies the answers addressed to it with `apply` (the card's path, with where it
   * was given): taken while anything waits here, and on `takeAnswers`. Returns the removal.
   */
  onAnswer(apply: (id: string, decision: ServerRequestDecision, origin: RelayOrigin) => void): () => void;
  /** Takes and applies the answers addressed to this process now; returns how many were taken. */
  takeAnswers(): number;
  dispose(): void;
}

/** How often the holder looks for answers while something waits here, and the sender for the holder's word. */
const ANSWER_POLL_MS = 200;
/** How long a sender waits for the holder to take its answer before withdrawing it. */
const ANSWER_TAKE_LIMIT_MS = 30_000;

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
  /** The answers inbox shared by the processes on this data folder; without it, answers are given only here. */
  inbox?: AnswerInbox | undefined;
  /** What this process is, written into its owner token for other processes to show (./request-holders.ts). */
  holder?: HolderKind | undefined;
}

/** The engines alive in this process, by owner token (a restart in the same process leaves its old token dead). */
const LIVE_OWNERS = new Set<string>();

/**
 * Whether the process (and, in this process, the engine) that a request's record names is still running: what a start
 * goes by to cancel what waited in a process that is gone. It proves nothing about that process (`answering` does).
 */
function ownerAlive(owner: string | null): boolean {
  if (owner === null) return false;
  if (LIVE_OWNERS.has(owner)) return true;
  const pid = ownerPid(owner);
  if (pid === undefined || pid === process.pid) return false;
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
  const owner = newOwnerToken(dependencies.holder);
  LIVE_OWNERS.add(owner);
  const dueListeners = new Set<(id: string) => void>();
  const { inbox } = dependencies;
  const origin: RelayOrigin = dependencies.actor === 'cli' ? 'cli' : 'app';
  let applyAnswer: ((id: string, decision: ServerRequestDecision, origin: RelayOrigin) => void) | undefined;
  let answerPoll: ReturnType<typeof setInterval> | undefined;
  let firstLook: ReturnType<typeof setTimeout> | undefined;
  /** When this holder last recorded that it looked for answers (the record is throttled). */
  let lookRecorded = Number.NEGATIVE_INFINITY;

  /**
   * Whether the holder a record names answers there (./request-holders.ts): an engine of this process, or a process
   * that runs and looked for its answers lately. A record naming a running process that is no holder (pid 1, this
   * process) is not believed: it is not listed, and nothing is sent to it.
   */
  const answering = (holder: string | null): boolean => {
    if (holder === null) return false;
    if (LIVE_OWNERS.has(holder)) return true;
    if (!inbox || !ownerAlive(holder)) return false;
    return lookedLately(inbox.lookedAt(holder), now());
  };

  /** A request held by another running process, as listed here: marked with its holder, never trusted to say so. */
  const markedElsewhere = (stored: StoredServerRequest): HeldRequestView => ({
    ...stored.request,
    heldElsewhere: { pid: ownerPid(stored.owner ?? '') ?? 0, process: holderWords(stored.owner ?? '') },
  });
  const heldByOther = (stored: StoredServerRequest): boolean =>
    stored.owner !== owner && ownerPid(stored.owner ?? '') !== undefined && answering(stored.owner);

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

  /**
   * Why a request cannot be answered from here, by its id: gone, decided, held by a process that ended, or named as
   * held by a process that does not answer.
   */
  const notAnswerable = (id: string, stored: StoredServerRequest | undefined): WorkbenchError | undefined => {
    if (!stored)
      return new WorkbenchError(
        'not_found',
        `No request waits by the id '${id}': it was answered, timed out or cancelled.`,
        { id },
      );
    if (stored.status !== 'pending') {
      const how = stored.resolution?.action
        ? SERVER_REQUEST_ACTION_WORDS[stored.resolution.action]
        : (stored.resolution?.reason ?? stored.status);
      return new WorkbenchError('conflict', `'${id}' was already decided: ${how}.`, { id, status: stored.status });
    }
    if (!ownerAlive(stored.owner))
      return new WorkbenchError(
        'conflict',
        `'${id}' was held by an AI Workbench process that has ended: its server's request ended with it, so it cannot be answered (it is recorded as cancelled at the next start).`,
        { id },
      );
    if (!answering(stored.owner))
      return new WorkbenchError(
        'conflict',
        `Nothing was sent: '${id}' names pid ${ownerPid(stored.owner ?? '') ?? '?'} as the process that holds it, but that process does not answer as an AI Workbench process holding a request would (it has not looked for answers lately). The record may not have been written by AI Workbench; it is left as it is.`,
        { id },
      );
    return undefined;
  };

  /** Takes the answers addressed here and applies each through the card's path; writes back how each ended. */
  function takeAnswers(): number {
    if (!inbox || !applyAnswer) return 0;
    // Recorded with the look, when it began: what other processes believe this holder by (./request-holders.ts).
    const at = now();
    const record = at - lookRecorded >= HOLDER_LOOK_RECORD_MS || at < lookRecorded;
    const taken = inbox.take(owner, record ? at : undefined);
    if (record) lookRecorded = at;
    for (const answer of taken) {
      let why: string | undefined;
      if (!answer.ok) why = answer.why;
      else {
        const stored = ownWaiting(answer.requestId);
        // The holder checks again what the sender checked: a row in the table is data, not a person's click.
        why = stored
          ? relayProblem(stored.request, answer.decision)
          : (notAnswerable(answer.requestId, store.getServerRequest(answer.requestId))?.message ??
            `'${answer.requestId}' is not held by this process.`);
        if (why === undefined) {
          try {
            applyAnswer(answer.requestId, answer.decision, answer.origin);
          } catch (error) {
            why = error instanceof Error ? error.message : String(error);
          }
        }
      }
      try {
        inbox.finish(answer.answerId, why === undefined ? 'applied' : 'refused', why ?? null);
      } catch (error) {
        onError(error);
      }
    }
    return taken.length;
  }

  /**
   * Looks for answers while something waits here — at once, so that other processes believe this holder from the
   * start (`answering`), then every `ANSWER_POLL_MS`; stops once nothing waits.
   */
  const watchAnswers = (): void => {
    if (!inbox || !applyAnswer || answerPoll) return;
    const look = (): void => {
      try {
        takeAnswers();
        if (!store.waitingServerRequests().some((stored) => stored.owner === owner)) stopWatching();
      } catch (error) {
        onError(error);
      }
    };
    answerPoll = setInterval(look, ANSWER_POLL_MS);
    answerPoll.unref?.();
    firstLook = setTimeout(look, 0);
    firstLook.unref?.();
  };
  const stopWatching = (): void => {
    clearInterval(answerPoll);
    clearTimeout(firstLook);
    answerPoll = undefined;
    firstLook = undefined;
  };

  function sendAnswer(id: string, decision: ServerRequestDecision): string {
    const stored = store.getServerRequest(id);
    const problem = notAnswerable(id, stored);
    if (problem) throw problem;
    const waiting = stored as StoredServerRequest;
    if (waiting.owner === owner)
      throw new WorkbenchError('internal', `'${id}' waits in this process: it is answered here, not relayed.`);
    const refused = relayProblem(waiting.request, decision);
    if (refused !== undefined) throw new WorkbenchError('invalid_input', `'${id}' cannot be answered so: ${refused}.`);
    if (!inbox) throw new WorkbenchError('unavailable', 'Answers to another process are not available here.');
    return inbox.send({ requestId: waiting.request.id, owner: waiting.owner as string, decision, origin });
  }

  function relayed(answerId: string): { applied: true } | { applied: false; why: string } | undefined {
    const answer = inbox?.get(answerId);
    if (!answer) return { applied: false, why: 'the answer is gone' };
    if (answer.status === 'applied') return { applied: true };
    if (answer.status === 'refused') return { applied: false, why: answer.message ?? 'refused' };
    return undefined;
  }

  return {
    heldHere: (id) => ownWaiting(id) !== undefined,
    waitingAnywhere: () =>
      store
        .waitingServerRequests()
        .filter((stored) => answering(stored.owner))
        .map((stored) => ({ request: stored.request, here: stored.owner === owner })),
    heldElsewhere(chatId) {
      const all = store
        .waitingServerRequests()
        .filter((stored) => stored.request.kind !== 'app-tool-call' && heldByOther(stored))
        .map(markedElsewhere);
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    whyNotAnswerable: (id) => notAnswerable(id, store.getServerRequest(id)),
    sendAnswer,
    relayed,
    async relay(id, decision) {
      const answerId = sendAnswer(id, decision);
      const holder = store.getServerRequest(id)?.owner ?? null;
      // Read once the answer is written: a look that began after it saw it (./request-holders.ts, `lookedPast`).
      const started = now();
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
        const result = relayed(answerId);
        if (result?.applied) return;
        if (result) throw new WorkbenchError('conflict', `Not applied: ${result.why}`, { id });
        const gone = !ownerAlive(holder);
        const passed =
          !gone &&
          holder !== null &&
          inbox?.get(answerId)?.status === 'new' &&
          lookedPast(inbox.lookedAt(holder), started);
        const quiet = !gone && !answering(holder);
        if (gone || passed || quiet || now() - started > ANSWER_TAKE_LIMIT_MS) {
          const pid = ownerPid(holder ?? '') ?? '?';
          const why = gone
            ? 'the AI Workbench process that held it ended before it applied your answer'
            : passed
              ? `the process named as holding it (pid ${pid}) looked for answers without taking yours, which the AI Workbench process holding it would have done`
              : quiet
                ? `the process named as holding it (pid ${pid}) stopped looking for answers`
                : 'the AI Workbench process that holds it did not take your answer';
          if (inbox?.withdraw(answerId, why)) throw new WorkbenchError('unavailable', `Not applied: ${why}.`, { id });
          // Taken meanwhile: its holder's word comes on the next turn, unless the holder ended while applying it.
          if (gone && relayed(answerId) === undefined)
            throw new WorkbenchError(
              'unavailable',
              'The AI Workbench process that held it ended while it applied your answer: the audit log says whether it was.',
              { id },
            );
        }
      }
    },
    onAnswer(apply) {
      applyAnswer = apply;
      if (store.waitingServerRequests().some((stored) => stored.owner === owner)) watchAnswers();
      return () => {
        applyAnswer = undefined;
        stopWatching();
      };
    },
    takeAnswers,
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
      watchAnswers();
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
        .filter((stored) => stored.request.kind === 'app-tool-call' && answering(stored.owner))
        .map((stored) => (stored.owner === owner ? stored.request : markedElsewhere(stored)));
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
      stopWatching();
      try {
        inbox?.forget(owner);
      } catch (error) {
        onError(error);
      }
    },
  };
}
