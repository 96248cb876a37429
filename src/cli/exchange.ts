import type { ApprovalResolution, ApprovalsChange, ToolCallApproval, ToolCallRequest } from '../shared/approval';
import { errorText } from '../shared/error-data';
import type { ChatMessage, ChatStreamEvent, ToolCallRecord } from '../shared/messages';
import type { ServerRequestDecision, ServerRequestsChange, ServerRequestView } from '../shared/server-request-views';
import type { CliSession } from './session';
import type { Colors } from './terminal';
import { createStreamSanitizer } from './terminal-text';
import { progressLine, toolCallLine } from './transcript';

/**
 * How long a waiting call still waits, and a signal that aborts (its reason: the call's resolution) as soon as it
 * stops waiting while the person is still being asked — it timed out, or was decided or cancelled elsewhere.
 */
export interface CallWait {
  expiresAt: number | null;
  gone: AbortSignal;
}

/**
 * What decides the calls that wait for a person: answers, "no one can be asked", or "stop". A call that stopped
 * waiting meanwhile (`waits`) gets no answer: the answers may cover fewer calls than were asked about.
 */
export type Approver = (
  requests: readonly ToolCallRequest[],
  waits: ReadonlyMap<string, CallWait>,
) => Promise<
  { kind: 'answers'; approvals: ToolCallApproval[] } | { kind: 'unattended'; reason: string } | { kind: 'stop' }
>;

/**
 * What answers a server's request of the model or the person while the exchange's tool calls run
 * (docs/user/server-requests.md), one at a time like tool calls: a decision, "no one can be asked", "stop", or — once
 * `gone` aborted (the request was answered from the app's inbox, timed out or was cancelled meanwhile;
 * docs/user/approvals.md#one-inbox) — `gone`: nothing to answer any more.
 */
export type ServerRequestAnswerer = (
  request: ServerRequestView,
  gone: AbortSignal,
) => Promise<
  | { kind: 'decision'; decision: ServerRequestDecision }
  | { kind: 'unattended'; reason: string }
  | { kind: 'stop' }
  | { kind: 'gone' }
>;

export interface ExchangeOutcome {
  exchangeId: string;
  /** `done`: the model finished; `stopped`: Ctrl+C (or a stop) ended it; `error`: it failed (the message says why). */
  status: 'done' | 'stopped' | 'error';
  error?: string;
  /** Tool calls of the exchange that were denied (by a rule, a person, or because no one could be asked). */
  denied: number;
  text: string;
  calls: ToolCallRecord[];
}

export interface ExchangeView {
  /** Reply text as it streams. */
  text(delta: string): void;
  /** A line about a tool call, a notice or an error; starts on a line of its own. */
  line(text: string): void;
}

/** Calls in a final state are printed once each; pending ones are shown by the approval prompt instead. */
const FINAL = new Set<ToolCallRecord['status']>(['success', 'error', 'denied', 'timeout', 'cancelled', 'interrupted']);

/**
 * Drives one exchange through the shared services (the ONE tool loop): sends the user's message with `chat.send`,
 * shows what streams (`chat.onDidStream`), and whenever the reply ends with calls waiting, asks `approve` and
 * submits seed 000's approval message — until the exchange ends. `interrupt()` stops it (`chat.stop`).
 */
export interface ExchangeDriver {
  send(chatId: string, text: string | null): Promise<ExchangeOutcome>;
  /** True while a reply is running (not while a person is being asked). */
  readonly busy: boolean;
  interrupt(): void;
}

export function createExchangeDriver(
  session: CliSession,
  view: ExchangeView,
  colors: Colors,
  approve: Approver,
  answerServerRequest?: ServerRequestAnswerer,
): ExchangeDriver {
  let busy = false;
  let stopRequested = false;
  let currentChat: string | null = null;
  /** An interrupt's work (tasks cancelled, the reply stopped): the exchange ends once it is done. */
  let stopping: Promise<void> = Promise.resolve();

  async function send(chatId: string, text: string | null): Promise<ExchangeOutcome> {
    currentChat = chatId;
    stopRequested = false;
    const printed = new Map<string, ToolCallRecord['status']>();
    let exchangeId: string | null = null;
    let streamedText = '';
    // One escape sequence may come in two pieces of the stream: held until it is whole, then dropped.
    const streamSanitizer = createStreamSanitizer();
    const showText = (delta: string): void => {
      const shown = streamSanitizer.push(delta);
      if (shown !== '') view.text(shown);
    };
    const shownProgress = new Map<string, string>();
    // The calls being asked about, each stopped as soon as it is resolved (timed out, cancelled) while it is asked.
    const waits = new Map<string, { expiresAt: number | null; controller: AbortController }>();
    const heldLines = new Map<string, ToolCallRecord>();
    const showCall = (call: ToolCallRecord): void => {
      const progress = progressLine(call, colors);
      if (progress !== undefined && shownProgress.get(call.toolCallId) !== progress) {
        shownProgress.set(call.toolCallId, progress);
        view.line(progress);
      }
      if (!FINAL.has(call.status) || printed.get(call.toolCallId) === call.status) return;
      // A call that ends while the person is asked about it (timed out): the prompt says so first, then its line.
      if (waits.has(call.toolCallId)) {
        heldLines.set(call.toolCallId, call);
        return;
      }
      printed.set(call.toolCallId, call.status);
      view.line(toolCallLine(call, colors));
    };
    const unsubscribe = session.services.events.subscribe((event, payload) => {
      if (event !== 'chat.onDidStream') return;
      const streamed = payload as ChatStreamEvent;
      if (
        streamed.chatId !== chatId ||
        (exchangeId !== null && 'exchangeId' in streamed && streamed.exchangeId !== exchangeId)
      )
        return;
      switch (streamed.kind) {
        case 'text':
          streamedText += streamed.delta;
          showText(streamed.delta);
          break;
        case 'tool-call':
          showCall(streamed.call);
          break;
        case 'message':
          showMessage(streamed.message);
          break;
        case 'error':
          break;
        case 'activity':
          break;
      }
    });
    // The servers' requests of this chat (and of none) are answered in arrival order, one at a time.
    let answering: Promise<void> = Promise.resolve();
    /** The requests being asked about, by id and stage: aborted with how each ended when it stops waiting. */
    const asking = new Map<string, AbortController>();
    const stageOf = (request: ServerRequestView): string =>
      request.kind === 'sampling' ? `${request.id}#${request.stage}` : request.id;
    const answerOne = async (request: ServerRequestView): Promise<void> => {
      const gone = new AbortController();
      asking.set(stageOf(request), gone);
      try {
        await askUntilAnswered(request, gone.signal);
      } finally {
        asking.delete(stageOf(request));
      }
    };
    const askUntilAnswered = async (request: ServerRequestView, gone: AbortSignal): Promise<void> => {
      for (;;) {
        // A server's request answered meanwhile (from the app's inbox, or it ended) before it was even asked about.
        const stage = stageOf(request);
        if (
          (request.kind === 'sampling' || request.kind === 'elicitation') &&
          !session.services.conversations.serverRequests().some((waiting) => stageOf(waiting) === stage)
        )
          return;
        const answer = answerServerRequest
          ? await answerServerRequest(request, gone)
          : { kind: 'unattended' as const, reason: 'no one can be asked here' };
        if (answer.kind === 'gone') {
          const outcome = typeof gone.reason === 'string' ? gone.reason : 'it no longer waits';
          view.line(
            colors.yellow(
              `→ ${request.serverName}'s request was answered elsewhere meanwhile (${outcome}); nothing to answer here.`,
            ),
          );
          return;
        }
        let decision: ServerRequestDecision;
        if (answer.kind === 'decision') decision = answer.decision;
        else {
          if (answer.kind === 'stop') {
            stopRequested = true;
            void session.call('chat.stop', { chatId }).catch(() => undefined);
          }
          const reason = answer.kind === 'unattended' ? answer.reason : 'you stopped the reply';
          decision = request.kind === 'sampling' ? { action: 'deny', reason } : { action: 'cancel', reason };
        }
        try {
          await session.call('serverRequests.decide', { id: request.id, decision });
          return;
        } catch (error) {
          view.line(colors.red(`error: ${errorText(error)}`));
          // Gone (answered elsewhere, timed out, cancelled) or no person to ask again: nothing more to do.
          const stillWaiting = session.services.conversations
            .serverRequests()
            .some((waiting) => waiting.id === request.id);
          if (!stillWaiting || answer.kind !== 'decision') return;
        }
      }
    };
    const unsubscribeResolved = session.services.events.subscribe((event, payload) => {
      if (event !== 'approvals.onDidChange') return;
      const change = payload as ApprovalsChange;
      if (change.kind !== 'resolved' || change.chatId !== chatId) return;
      for (const resolution of change.resolutions)
        waits.get(resolution.toolCallId)?.controller.abort(resolution satisfies ApprovalResolution);
    });
    const unsubscribeRequests = session.services.events.subscribe((event, payload) => {
      if (event !== 'serverRequests.onDidChange') return;
      const change = payload as ServerRequestsChange;
      if (change.kind === 'resolved') asking.get(stageOf(change.request))?.abort(change.outcome);
      if (change.kind !== 'waiting' || (change.request.chatId !== chatId && change.request.chatId !== null)) return;
      answering = answering.then(() => answerOne(change.request));
    });
    const showMessage = (message: ChatMessage): void => {
      if (message.role === 'assistant')
        for (const turn of message.reply.turns) for (const call of turn.toolCalls ?? []) showCall(call);
      else if (message.role === 'system') view.line(colors.dim(`· ${message.text}`));
      else if (message.role === 'error') view.line(colors.red(`error: ${message.error.message}`));
    };
    try {
      if (text !== null) {
        busy = true;
        const sent = await session.call('chat.send', { chatId, message: { role: 'user', text } });
        exchangeId = sent.exchangeId;
      }
      for (;;) {
        busy = true;
        const activity = await session.services.conversations.settled(chatId);
        busy = false;
        exchangeId ??= activity.exchangeId;
        if (activity.status !== 'waiting-approval') break;
        const { approvals } = await session.call('approvals.pending', { chatId });
        const requests = approvals.map((approval) => approval.request);
        if (requests.length === 0) continue;
        if (stopRequested) {
          await session.call('chat.stop', { chatId });
          continue;
        }
        waits.clear();
        for (const approval of approvals)
          waits.set(approval.request.toolCallId, { expiresAt: approval.expiresAt, controller: new AbortController() });
        const decision = await approve(
          requests,
          new Map([...waits].map(([id, wait]) => [id, { expiresAt: wait.expiresAt, gone: wait.controller.signal }])),
        );
        if (decision.kind === 'stop' || stopRequested) {
          stopRequested = true;
          await session.call('chat.stop', { chatId });
        } else if (decision.kind === 'unattended') {
          // No person can answer: the approval engine denies them as the system, with this reason.
          session.services.conversations.handle({ kind: 'unattended', chatId, reason: decision.reason });
        } else {
          // A call that timed out after it was answered (before this line) is left out; the others still go.
          const answers = decision.approvals.filter(
            (approval) => waits.get(approval.toolCallId)?.controller.signal.aborted !== true,
          );
          if (answers.length > 0) {
            try {
              await session.call('chat.send', { chatId, message: { role: 'approval', toolCallApprovals: answers } });
            } catch (error) {
              // Refused as a whole (nothing changed): say why; the calls still waiting are asked about again.
              view.line(colors.red(`error: ${errorText(error)}`));
            }
          }
        }
        waits.clear();
        for (const call of heldLines.values()) showCall(call);
        heldLines.clear();
      }
    } finally {
      // Ctrl+C's tasks are cancelled on their servers and their ends recorded before the command exits.
      await stopping;
      busy = false;
      unsubscribeResolved();
      unsubscribeRequests();
      await answering;
      unsubscribe();
      currentChat = null;
    }
    return outcomeOf(session, chatId, exchangeId, streamedText, stopRequested);
  }

  return {
    send,
    get busy() {
      return busy;
    },
    interrupt() {
      if (currentChat === null || stopRequested) return;
      stopRequested = true;
      stopping = cancelTasksAndStop(session, currentChat).catch(() => undefined);
    },
  };
}

/** How long an interrupt waits for the servers to end the tasks it cancelled (`tasks/cancel` itself may take 30 s). */
const TASK_CANCEL_WAIT_MS = 35_000;

const runningTaskCalls = (messages: readonly ChatMessage[]): ToolCallRecord[] =>
  messages.flatMap((message) =>
    message.role === 'assistant'
      ? message.reply.turns.flatMap((turn) =>
          (turn.toolCalls ?? []).filter((call) => call.status === 'running' && call.task !== undefined),
        )
      : [],
  );

/**
 * Ctrl+C: the chat's calls running as MCP tasks are cancelled on their servers (`chat.cancelTask`: the person's cancel
 * row, then `tasks/cancel`; docs/user/mcp-servers.md#tasks) rather than left running when the CLI exits, the reply is
 * stopped, and the interrupt waits (bounded) until those calls have ended, so their ends are in the chat and the audit.
 * A call whose `tools/call` is still on its way when Ctrl+C comes has no task yet, and a stopped reply would let its
 * task go on: the cancel is remembered, and sent as soon as the stopped exchange has ended — by then the task of every
 * such call is stored (the loop lets the reply go only once the task exists) or the call has ended without one.
 */
async function cancelTasksAndStop(session: CliSession, chatId: string): Promise<void> {
  /** The calls whose cancel was asked for: true when it was taken, false when refused (not waited for). */
  const asked = new Map<string, boolean>();
  const cancelRunning = async (): Promise<void> => {
    for (const call of runningTaskCalls((await session.call('chat.messages', { chatId })).messages)) {
      if (asked.has(call.toolCallId)) continue;
      const sent = await session
        .call('chat.cancelTask', { chatId, toolCallId: call.toolCallId })
        .then(() => true)
        .catch(() => false);
      asked.set(call.toolCallId, sent);
    }
  };
  await cancelRunning();
  await session.call('chat.stop', { chatId });
  await session.services.conversations.settled(chatId);
  await cancelRunning();
  const deadline = Date.now() + TASK_CANCEL_WAIT_MS;
  while (Date.now() < deadline) {
    const running = runningTaskCalls((await session.call('chat.messages', { chatId })).messages);
    if (!running.some((call) => asked.get(call.toolCallId) === true)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function outcomeOf(
  session: CliSession,
  chatId: string,
  exchangeId: string | null,
  streamedText: string,
  stopped: boolean,
): Promise<ExchangeOutcome> {
  const { messages } = await session.call('chat.messages', { chatId });
  const mine = messages.filter((message) => message.exchangeId === exchangeId);
  const calls = mine.flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
  const text =
    mine
      .flatMap((message) => (message.role === 'assistant' ? message.reply.turns.map((turn) => turn.message ?? '') : []))
      .join('\n') || streamedText;
  const error = mine.find((message) => message.role === 'error');
  const wasStopped = stopped || mine.some((message) => message.role === 'system' && message.kind === 'stopped');
  return {
    exchangeId: exchangeId ?? '',
    status: error ? 'error' : wasStopped ? 'stopped' : 'done',
    ...(error?.role === 'error' ? { error: error.error.message } : {}),
    denied: calls.filter((call) => call.status === 'denied').length,
    text,
    calls,
  };
}
