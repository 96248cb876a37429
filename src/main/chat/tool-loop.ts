import { randomUUID } from 'node:crypto';
import type { ApprovalResolution, DecisionSource, ToolCallRequest } from '../../shared/approval';
import type { Chat } from '../../shared/chat';
import { RESOLUTION_WORDS } from '../../shared/decisions';
import type { FinishReason, Usage } from '../../shared/llm';
import type {
  AssistantChatMessage,
  ChatMessage,
  ModelToolCall,
  ReplyEnd,
  ToolCallDecisionInfo,
  ToolCallRecord,
  Turn,
} from '../../shared/messages';
import type { ApprovalGate } from '../approval/approval-gate';
import type { PendingApprovals } from '../approval/pending-approvals';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { LlmProvider } from '../llm/provider';
import type { McpTool } from '../../shared/mcp';
import type { McpToolResult } from '../../shared/mcp-result';
import { CallRefused } from '../mcp/call-door';
import type { McpHost } from '../mcp/mcp-host';
import { conversationOf } from './history';
import type { FollowedTasks } from './followed-tasks';
import { cancelTaskCall, untilEndOrStop } from './task-calls';
import { createTaskCallStatus } from './task-call-status';
import type { MessageStore, NewMessage } from './message-store';
import { offerTools, recordOf, type ToolOffer } from './tool-offer';
import { USER_DENIED_TEXT } from './tool-results';

/** What one run of the loop reports as it goes; the conversations service turns it into events and activity. */
export interface LoopReporter {
  status(status: 'generating' | 'running-tools'): void;
  text(message: AssistantChatMessage, turn: number, delta: string): void;
  toolCall(message: AssistantChatMessage, turn: number, call: ToolCallRecord): void;
  /** A message was added or changed whole. */
  message(message: ChatMessage): void;
}

export interface ToolLoopDependencies {
  messages: MessageStore;
  provider(id: string): LlmProvider;
  gate: Pick<ApprovalGate, 'evaluate'>;
  pending: Pick<PendingApprovals, 'add'>;
  tools: Pick<McpHost, 'tools' | 'callTool' | 'whenSettled' | 'cancelTask'>;
  audit: AuditRecorder;
  maxToolRounds(): number;
  /** What the server by this name runs now (its identity key): a call with a view is bound to it. */
  identityOf?(serverName: string): string | undefined;
  /** Calls running as MCP tasks, recorded so that they are followed again after a restart (followed-tasks.ts). */
  followed?: Pick<FollowedTasks, 'started' | 'ended' | 'letGo' | 'stillFollows' | 'isOpen'>;
  now(): number;
  onError(error: unknown): void;
}

/** One exchange as the loop sees it. */
export interface ExchangeRun {
  chat: Chat;
  exchangeId: string;
  signal: AbortSignal;
  report: LoopReporter;
}

/** What a person is told when a reply ended for a reason other than the model being done. */
const FINISH_NOTICES: Partial<Record<FinishReason, string>> = {
  length: 'The reply reached the most tokens the model may write at once and was cut off. Ask it to go on.',
  content_filter: "The provider's safety system stopped this reply.",
  malformed_tool_call:
    'The model tried to call a tool but produced a call the provider could not read. Try again, or rephrase the request.',
};

/**
 * The ONE tool loop (docs/dev/architecture.md "The tool loop"), written against the provider interface, the approval gate and the MCP
 * host, so every provider and every front end runs the same code:
 * generate → for each call: decide (the gate records allow/deny in the audit log first) → run what is allowed
 * (concurrently), refuse what is denied, keep what needs a person → when calls wait, END the reply; otherwise
 * generate again, until the model answers without tool calls or the exchange reaches its round limit.
 */
export interface ToolLoop {
  /** Generates rounds until the exchange ends or waits for a person. Provider failures end it with an error message. */
  run(exchange: ExchangeRun): Promise<void>;
  /**
   * Writes what people (or timeouts, or a stop) decided into the calls that waited; answers the message they are in
   * and whether every call of that reply is now decided.
   */
  applyResolutions(
    chatId: string,
    exchangeId: string,
    resolutions: readonly ApprovalResolution[],
  ): { message: AssistantChatMessage; settled: boolean } | undefined;
  /** Runs the calls people allowed, then goes on generating in the same exchange (a new reply after the approval message). */
  resume(exchange: ExchangeRun, message: AssistantChatMessage): Promise<void>;
  /** The person's Cancel of a call running as an MCP task (task-calls.ts): recorded, then `tasks/cancel` is sent. */
  cancelTask(chatId: string, toolCallId: string): { cancelled: boolean };
}

export function createToolLoop(dependencies: ToolLoopDependencies): ToolLoop {
  const { messages, gate, pending, tools, audit, now } = dependencies;

  const save = (message: AssistantChatMessage, report: LoopReporter): void => {
    messages.replace(message);
    report.message(message);
  };
  const append = <M extends NewMessage>(message: M, report: LoopReporter): ChatMessage => {
    const stored = messages.append(message, now());
    report.message(stored);
    return stored;
  };
  const endWithError = (run: ExchangeRun, reply: AssistantChatMessage | undefined, error: unknown): void => {
    const data =
      error instanceof WorkbenchError
        ? error.toData()
        : {
            code: 'internal' as const,
            message: `The reply failed: ${error instanceof Error ? error.message : String(error)}`,
          };
    if (!(error instanceof WorkbenchError)) dependencies.onError(error);
    if (reply) {
      reply.end = 'error';
      save(reply, run.report);
    }
    append({ role: 'error', chatId: run.chat.id, exchangeId: run.exchangeId, error: data }, run.report);
  };
  const turnsOf = (chatId: string, exchangeId: string): number =>
    messages
      .exchange(chatId, exchangeId)
      .reduce((count, message) => count + (message.role === 'assistant' ? message.reply.turns.length : 0), 0);

  /** Runs one allowed call: records its result in the audit log and in the record, whatever happens. */
  async function execute(
    run: ExchangeRun,
    reply: AssistantChatMessage,
    turn: number,
    record: ToolCallRecord,
    definitionHash: string | undefined,
  ): Promise<void> {
    record.status = 'running';
    record.startedAt = now();
    run.report.toolCall(reply, turn, record);
    const started = performance.now();
    // A call that runs as an MCP task: what it records as its task changes and, once the reply let it go, its end
    // (task-call-status.ts); the reply may stop while it goes on (task-calls.ts).
    const taskStatus = createTaskCallStatus(
      {
        messages,
        audit,
        followEnded: (toolCallId) => dependencies.followed?.ended(toolCallId),
        announce: (message) => run.report.message(message),
        onError: dependencies.onError,
        open: () => dependencies.followed?.isOpen() ?? true,
      },
      {
        chatId: run.chat.id,
        messageId: reply.id,
        exchangeId: run.exchangeId,
        toolCallId: record.toolCallId,
        serverName: record.serverName,
        toolName: record.toolName,
        definitionHash,
      },
      {
        startedRowWritten: false,
        durationMs: () => performance.now() - started,
        announceState: () => {
          if (record.status === 'running') run.report.toolCall(reply, turn, record);
        },
      },
    );
    let stopping: ReturnType<typeof untilEndOrStop<McpToolResult>> | undefined;
    try {
      const call = tools.callTool({
        serverName: record.serverName,
        toolName: record.toolName,
        args: record.args,
        signal: run.signal,
        chatId: run.chat.id,
        exchangeId: run.exchangeId,
        toolCallId: record.toolCallId,
        // Decided on this definition: if the server lists another now (it restarted meanwhile), nothing runs.
        definitionHash,
        // The server's progress shows on the tool block and in the CLI while the call runs (docs/user/mcp-servers.md#progress).
        onProgress: (progress) => {
          if (record.status !== 'running') return;
          record.progress = progress;
          run.report.toolCall(reply, turn, record);
        },
        onTask: (state) => {
          const first = !record.task;
          record.task = state;
          // Stored once it exists, so that the person's Cancel finds it (task-calls.ts, cancelTaskCall), and each
          // status as it comes, so that a reload (or the CLI after a stop) shows where the task is now, not where it began.
          taskStatus.changed(state, { stored: first });
          if (first) {
            save(reply, run.report);
            dependencies.followed?.started({
              toolCallId: record.toolCallId,
              chatId: run.chat.id,
              messageId: reply.id,
              exchangeId: run.exchangeId,
              serverName: record.serverName,
              serverIdentity: dependencies.identityOf?.(record.serverName) ?? null,
              toolName: record.toolName,
              definitionHash: definitionHash ?? null,
              taskId: state.taskId,
              createdAt: now(),
            });
          }
          stopping?.taskSeen();
        },
        // Another process may take the task over once this one went quiet (task-claims.ts): then it sends nothing more.
        stillFollowed: () => dependencies.followed?.stillFollows(record.toolCallId) ?? true,
      });
      stopping = untilEndOrStop(call, run.signal, () => record.task !== undefined);
      const outcome = await stopping.outcome;
      if (outcome === 'detached') {
        // The reply stopped; the task goes on, and its end is written into this block when it comes.
        void call.then(
          (result) => taskStatus.ended({ result }),
          (error: unknown) => {
            // Its server went away while the task ran (followed-tasks.ts): not its end; followed when the server is back.
            if (serverLeftTask(error)) dependencies.followed?.letGo(record.toolCallId);
            else taskStatus.ended({ error });
          },
        );
        return;
      }
      if ('error' in outcome && record.task && serverLeftTask(outcome.error)) {
        // Its server went away while the task ran (followed-tasks.ts): not its end; followed when the server is back.
        dependencies.followed?.letGo(record.toolCallId);
        save(reply, run.report);
        return;
      }
      if ('error' in outcome) throw outcome.error;
      const result = outcome.value;
      record.result = result;
      record.status = result.isError ? 'error' : 'success';
    } catch (error) {
      if (error instanceof CallRefused) {
        // Whoever allowed it (a rule, a person, a grant), a deny rule in force when the call was sent won: one added
        // while the call waited, one its edited arguments hit, or one added before a retry (src/main/mcp/call-door.ts).
        // The door recorded the auto_deny row; nothing ran, so there is no result row. A task a rule stopped mid-way
        // (2026-07-28: each leg passes the door) was cancelled on its server, and is no longer followed.
        if (record.task) dependencies.followed?.ended(record.toolCallId);
        delete record.progress;
        delete record.startedAt;
        record.status = 'denied';
        record.decision = { outcome: 'deny', actor: 'policy', reason: error.reason };
        record.error = error.reason;
        run.report.toolCall(reply, turn, record);
        return;
      }
      record.status = run.signal.aborted || isCancelled(error) ? 'cancelled' : 'error';
      record.error = error instanceof Error ? error.message : String(error);
    }
    recordEnd(run, record, definitionHash, started);
    run.report.toolCall(reply, turn, record);
  }

  /** A call's end: its result row in the audit log, whatever happened. */
  function recordEnd(
    run: ExchangeRun,
    record: ToolCallRecord,
    definitionHash: string | undefined,
    started: number,
  ): void {
    delete record.progress;
    record.durationMs = performance.now() - started;
    dependencies.followed?.ended(record.toolCallId);
    try {
      audit.recordToolResult({
        chatId: run.chat.id,
        exchangeId: run.exchangeId,
        toolCallId: record.toolCallId,
        serverName: record.serverName,
        toolName: record.toolName,
        definitionHash,
        outcome: record.status === 'success' ? 'success' : 'error',
        durationMs: record.durationMs,
        resultBytes: record.result?.sizeBytes ?? 0,
        error:
          record.status === 'success'
            ? undefined
            : (record.error ?? (record.result?.forModel.text.slice(0, 500) || 'the tool reported an error')),
      });
    } catch (error) {
      // The tool ran and its decision row is in the log; a lost result row must not lose the result itself.
      dependencies.onError(error);
    }
  }

  /** Decides each call of a turn: runs what is allowed, refuses what is denied, and answers the requests that wait. */
  async function decideAndRun(
    run: ExchangeRun,
    reply: AssistantChatMessage,
    turn: number,
    calls: readonly ModelToolCall[],
    offer: ToolOffer,
  ): Promise<ToolCallRequest[]> {
    const records: ToolCallRecord[] = [];
    const toRun: { record: ToolCallRecord; hash: string }[] = [];
    const asks: ToolCallRequest[] = [];
    for (const call of calls) {
      const { record, tool: offered } = recordOf(call, randomUUID(), offer);
      const identity = record.viewUri && record.serverName ? dependencies.identityOf?.(record.serverName) : undefined;
      if (identity !== undefined) record.viewIdentity = identity;
      records.push(record);
      if (!offered || record.status !== 'pending') continue;
      const tool = offered.cached ? await liveDefinition(run, record, offered) : offered;
      if (!tool) continue;
      try {
        const verdict = gate.evaluate({ chatId: run.chat.id, exchangeId: run.exchangeId }, record, tool);
        record.decision = {
          outcome: verdict.outcome,
          actor: 'policy',
          reason: verdict.decision.reason,
          ...approvalsOff(verdict.decision.source),
        };
        if (verdict.outcome === 'allow') toRun.push({ record, hash: tool.definitionHash });
        else if (verdict.outcome === 'deny') {
          record.status = 'denied';
          record.error = verdict.decision.reason;
        } else if (verdict.outcome === 'ask') asks.push(verdict.request);
      } catch (error) {
        // Fail closed: a decision that cannot be recorded is no decision, and the tool does not run.
        record.status = 'error';
        record.error = `The decision could not be recorded in the audit log, so the tool did not run: ${error instanceof Error ? error.message : String(error)}`;
        dependencies.onError(error);
      }
    }
    (reply.reply.turns[turn] as Turn).toolCalls = records;
    save(reply, run.report);
    if (toRun.length > 0) {
      run.report.status('running-tools');
      await Promise.all(toRun.map(({ record, hash }) => execute(run, reply, turn, record, hash)));
    }
    return asks;
  }

  /**
   * The live definition of a tool offered from its server's last launch, once the server has listed its tools; or,
   * when it lists the tool differently, no longer, or did not start, undefined with the call ended as an error:
   * nothing was decided, asked or run (docs/user/mcp-servers.md#tool-lists-from-the-last-launch).
   */
  async function liveDefinition(
    run: ExchangeRun,
    record: ToolCallRecord,
    offered: McpTool,
  ): Promise<McpTool | undefined> {
    await tools.whenSettled({ serverName: offered.serverName, signal: run.signal });
    if (run.signal.aborted) {
      record.status = 'cancelled';
      record.error = "The reply was stopped while the tool's server was starting; the tool did not run.";
      return undefined;
    }
    const live = tools.tools().find((tool) => tool.serverName === offered.serverName && tool.name === offered.name);
    if (live?.available && !live.cached && live.definitionHash === offered.definitionHash) return live;
    record.status = 'error';
    record.error = !live?.available
      ? `The tool "${offered.name}" was offered as "${offered.serverName}" listed it at its last launch, but the server has not listed it since it started, so the tool did not run. The server's status and log in the MCP servers settings say why.`
      : `The tool "${offered.name}" was offered as "${offered.serverName}" listed it at its last launch, and the server lists it differently now, so it did not run and nothing was asked. Its current definition is offered from the next request on: call it again if it still fits.`;
    return undefined;
  }

  /** One generation into a new turn of `reply`: its text and the calls the model made, or why it ended. */
  async function generate(
    run: ExchangeRun,
    provider: LlmProvider,
    reply: AssistantChatMessage,
    offer: ToolOffer,
  ): Promise<{ calls: ModelToolCall[]; finish: FinishReason }> {
    const { chat } = run;
    const turn = reply.reply.turns.push({}) - 1;
    const current = reply.reply.turns[turn] as Turn;
    const calls: ModelToolCall[] = [];
    let finish: FinishReason = 'other';
    run.report.status('generating');
    const request = {
      model: chat.model as string,
      ...(chat.systemPrompt === null ? {} : { system: chat.systemPrompt }),
      messages: conversationOf(messages.all(chat.id)),
      tools: offer.specs,
    };
    for await (const event of provider.generate(request, run.signal)) {
      if (event.type === 'text') {
        current.message = (current.message ?? '') + event.delta;
        run.report.text(reply, turn, event.delta);
      } else if (event.type === 'tool_call') calls.push(event.call);
      else if (event.type === 'usage') reply.usage = addUsage(reply.usage, event.usage);
      else finish = event.reason;
    }
    return { calls, finish: run.signal.aborted ? 'aborted' : finish };
  }

  async function rounds(run: ExchangeRun): Promise<void> {
    const { chat, exchangeId, report } = run;
    let reply: AssistantChatMessage | undefined;
    const finishReply = (end: ReplyEnd): void => {
      if (!reply) return;
      reply.end = end;
      save(reply, report);
    };
    try {
      if (chat.providerId === null || chat.model === null) {
        throw new WorkbenchError(
          'invalid_input',
          'This chat has no model yet: pick a provider and a model for it, then send again.',
        );
      }
      const provider = dependencies.provider(chat.providerId);
      // Rounds this exchange took in earlier replies (before approvals split it), plus this reply's.
      const earlier = turnsOf(chat.id, exchangeId);
      for (;;) {
        if (run.signal.aborted) return finishReply('aborted');
        const max = dependencies.maxToolRounds();
        if (earlier + (reply?.reply.turns.length ?? 0) >= max) {
          finishReply('max_rounds');
          append(
            {
              role: 'system',
              kind: 'max-rounds',
              chatId: chat.id,
              exchangeId,
              text: `The model used ${max} rounds of tool calls without finishing, the most one reply may use; the reply was stopped. Send a message to let it go on.`,
            },
            report,
          );
          return;
        }
        reply ??= append(
          {
            role: 'assistant',
            chatId: chat.id,
            exchangeId,
            providerId: chat.providerId,
            model: chat.model,
            reply: { timestamp: now(), turns: [] },
          },
          report,
        ) as AssistantChatMessage;
        // Servers still starting (just after launch, or after a restart) would be missing from the offer, unless their
        // tools of the last launch stand in for them (a call of one waits for the live definition: liveDefinition).
        await tools.whenSettled({ signal: run.signal, acceptCached: true });
        if (run.signal.aborted) return finishReply('aborted');
        // The calls are looked up in the tools this request offered, by the names it gave them.
        const offer = offerTools(tools.tools());
        const { calls, finish } = await generate(run, provider, reply, offer);
        const turn = reply.reply.turns.length - 1;
        if ((reply.reply.turns[turn] as Turn).message === undefined && calls.length === 0) reply.reply.turns.pop();
        if (finish === 'aborted') return finishReply('aborted');
        if (calls.length === 0) {
          finishReply(finish);
          const notice = FINISH_NOTICES[finish];
          if (notice) append({ role: 'system', kind: 'info', chatId: chat.id, exchangeId, text: notice }, report);
          return;
        }
        const asks = await decideAndRun(run, reply, turn, calls, offer);
        if (run.signal.aborted) return finishReply('aborted');
        if (asks.length > 0) {
          pending.add(chat.id, exchangeId, asks);
          reply.reply.pendingToolCalls = asks;
          return finishReply('waiting-approval');
        }
        save(reply, report);
      }
    } catch (error) {
      if (run.signal.aborted) return finishReply('aborted');
      endWithError(run, reply, error);
    }
  }

  return {
    run: (exchange) => rounds(exchange),
    cancelTask: (chatId, toolCallId) => cancelTaskCall({ messages, audit, tools }, chatId, toolCallId),
    applyResolutions(chatId, exchangeId, resolutions) {
      const byId = new Map(resolutions.map((resolution) => [resolution.toolCallId, resolution]));
      const message = messages
        .exchange(chatId, exchangeId)
        .reverse()
        .find(
          (candidate): candidate is AssistantChatMessage =>
            candidate.role === 'assistant' &&
            (candidate.reply.pendingToolCalls ?? []).some((request) => byId.has(request.toolCallId)),
        );
      if (!message) return undefined;
      for (const turn of message.reply.turns) {
        for (const record of turn.toolCalls ?? []) {
          const resolution = byId.get(record.toolCallId);
          if (resolution) applyResolution(record, resolution);
        }
      }
      const waiting = message.reply.turns.some((turn) =>
        (turn.toolCalls ?? []).some((record) => record.status === 'pending' && record.decision?.outcome === 'ask'),
      );
      if (!waiting) {
        delete message.reply.pendingToolCalls;
        const stopped = resolutions.some((resolution) => resolution.outcome === 'cancelled');
        if (stopped) message.end = 'aborted';
      }
      messages.replace(message);
      return { message, settled: !waiting };
    },
    async resume(run, message) {
      const allowed: { record: ToolCallRecord; turn: number }[] = [];
      message.reply.turns.forEach((turn, index) => {
        for (const record of turn.toolCalls ?? []) {
          if (record.status === 'pending' && record.decision?.outcome === 'allow')
            allowed.push({ record, turn: index });
        }
      });
      const hashes = new Map(
        (message.reply.pendingToolCalls ?? []).map((request) => [request.toolCallId, request.definitionHash]),
      );
      // After a restart, approved calls wait for their servers to come back rather than fail as "no such tool".
      if (allowed.length > 0) await tools.whenSettled({ signal: run.signal });
      const known = new Map(tools.tools().map((tool) => [`${tool.serverName}\u0000${tool.name}`, tool.definitionHash]));
      if (allowed.length > 0) {
        run.report.status('running-tools');
        await Promise.all(
          allowed.map(({ record, turn }) =>
            execute(
              run,
              message,
              turn,
              record,
              hashes.get(record.toolCallId) ?? known.get(`${record.serverName}\u0000${record.toolName}`),
            ),
          ),
        );
      }
      message.end = run.signal.aborted ? 'aborted' : 'tool_calls';
      save(message, run.report);
      if (run.signal.aborted) return;
      await rounds(run);
    },
  };
}

/** Writes one resolution into the call it answers. */
function applyResolution(record: ToolCallRecord, resolution: ApprovalResolution): void {
  const reason = RESOLUTION_WORDS[resolution.outcome];
  switch (resolution.outcome) {
    case 'allow_session':
    case 'allow_once':
      record.decision = { outcome: 'allow', actor: 'user', reason, ...(resolution.edited ? { edited: true } : {}) };
      if (resolution.edited) {
        record.originalArgs = record.args;
        record.args = resolution.args;
      }
      return;
    case 'deny':
      record.status = 'denied';
      if (resolution.actor === 'system') {
        // No person decided (the CLI had no terminal to ask): the reason is the system's, never "You chose 'Deny'".
        const why = resolution.reason ?? 'No one could be asked, so the call was denied';
        record.decision = { outcome: 'deny', actor: 'system', reason: why };
        record.error = why;
        return;
      }
      record.decision = {
        outcome: 'deny',
        actor: 'user',
        reason,
        ...(resolution.reason ? { userReason: resolution.reason } : {}),
      };
      record.error = resolution.reason ? `${USER_DENIED_TEXT}: ${resolution.reason}` : USER_DENIED_TEXT;
      return;
    case 'timeout':
    case 'cancelled':
      record.status = resolution.outcome;
      record.decision = { outcome: 'deny', actor: 'system', reason };
      record.error = reason;
      return;
  }
}

/** A task call whose server went away (tool-tasks.ts): the task may go on, and is followed again (followed-tasks.ts). */
const serverLeftTask = (error: unknown): boolean => error instanceof WorkbenchError && error.code === 'unavailable';

/** The call ended because the person (or a stop) cancelled it: its task was cancelled on the server. */
const isCancelled = (error: unknown): boolean => error instanceof WorkbenchError && error.code === 'cancelled';

function addUsage(total: Usage | undefined, usage: Usage): Usage {
  if (!total) return usage;
  const cached = (total.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    ...(cached > 0 ? { cachedInputTokens: cached } : {}),
  };
}

/** A call allowed only because approvals were off: marked on its block (docs/user/approvals.md#when-approvals-are-off). */
function approvalsOff(source: DecisionSource): Pick<ToolCallDecisionInfo, 'approvalsOff'> {
  if (source.kind === 'approvals-off') return { approvalsOff: 'global' };
  if (source.kind === 'chat-mode' && source.setting === 'never-ask') return { approvalsOff: 'chat' };
  return {};
}
