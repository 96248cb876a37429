import type { AssistantChatMessage, ToolCallRecord, ToolTaskState } from '../../shared/messages';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { McpHost } from '../mcp/mcp-host';
import type { MessageStore } from './message-store';

/**
 * The chat's side of tool calls made as MCP tasks (docs/user/mcp-servers.md#tasks): their task rows in the audit
 * log, a call that goes on after the reply stopped (its result is written into its block when it ends), and the
 * person's Cancel. The call itself was decided, admitted at the door and audited like any call before its task
 * existed; nothing here starts one.
 */

const ENDED = new Set<ToolTaskState['status']>(['completed', 'failed', 'cancelled']);

/** Who a call's task rows are about. */
export interface TaskCallContext {
  chatId: string;
  exchangeId: string;
  definitionHash?: string | undefined;
}

/** Writes the task's `started` and `ended` rows as its state arrives; a row that cannot be written is reported. */
export function taskRows(
  audit: Pick<AuditRecorder, 'recordTask'>,
  context: TaskCallContext,
  record: ToolCallRecord,
  onError: (error: unknown) => void,
): (state: ToolTaskState) => void {
  let started = false;
  let ended = false;
  return (state) => {
    const event = !started ? 'started' : ENDED.has(state.status) && !ended ? 'ended' : undefined;
    if (!event) return;
    started = true;
    if (event === 'ended') ended = true;
    try {
      audit.recordTask({
        ...callOf(context, record),
        event,
        taskId: state.taskId,
        status: state.status,
        statusMessage: state.statusMessage,
        actor: 'system',
      });
    } catch (error) {
      onError(error);
    }
    // A task that ends at once (cancelled as it was created) has both rows.
    if (event === 'started' && ENDED.has(state.status) && !ended) {
      ended = true;
      try {
        audit.recordTask({
          ...callOf(context, record),
          event: 'ended',
          taskId: state.taskId,
          status: state.status,
          actor: 'system',
        });
      } catch (error) {
        onError(error);
      }
    }
  };
}

const callOf = (context: TaskCallContext, record: ToolCallRecord) => ({
  chatId: context.chatId,
  exchangeId: context.exchangeId,
  toolCallId: record.toolCallId,
  serverName: record.serverName,
  toolName: record.toolName,
  definitionHash: context.definitionHash,
});

/**
 * Settles with the call's outcome, or with `detached` when the reply was stopped while the call runs as a task: the
 * task goes on, and whoever detached writes its end when `call` settles.
 */
export function untilEndOrStop<T>(
  call: Promise<T>,
  signal: AbortSignal,
  isTask: () => boolean,
): { outcome: Promise<{ value: T } | { error: unknown } | 'detached'>; taskSeen(): void } {
  let detach: () => void = () => {};
  const detached = new Promise<'detached'>((resolve) => {
    detach = () => resolve('detached');
  });
  const onAbort = (): void => {
    if (isTask()) detach();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const outcome = Promise.race([
    call.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    detached,
  ]).finally(() => signal.removeEventListener('abort', onAbort));
  return {
    outcome,
    // A task created after the stop: it is let go at once.
    taskSeen: () => {
      if (signal.aborted) detach();
    },
  };
}

/**
 * Writes a change into the stored call (the reply may have been saved again since the loop let the task go) and
 * announces the message; nothing when the chat or the call is gone.
 */
export function updateStoredCall(
  messages: Pick<MessageStore, 'get' | 'replace'>,
  chatId: string,
  messageId: string,
  toolCallId: string,
  change: (record: ToolCallRecord) => void,
): AssistantChatMessage | undefined {
  let message;
  try {
    message = messages.get(chatId, messageId);
  } catch {
    return undefined;
  }
  if (message?.role !== 'assistant') return undefined;
  const record = message.reply.turns
    .flatMap((turn) => turn.toolCalls ?? [])
    .find((call) => call.toolCallId === toolCallId);
  if (!record) return undefined;
  change(record);
  messages.replace(message);
  return message;
}

/**
 * The person's Cancel of a call running as a task: its `cancel-requested` row first (the request is recorded before
 * it is sent), then `tasks/cancel`. Refused (`not_found`) when the chat has no such call running as a task here.
 */
export function cancelTaskCall(
  deps: {
    messages: Pick<MessageStore, 'all'>;
    audit: Pick<AuditRecorder, 'recordTask'>;
    tools: Pick<McpHost, 'cancelTask'>;
  },
  chatId: string,
  toolCallId: string,
): { cancelled: boolean } {
  let found: { record: ToolCallRecord; exchangeId: string } | undefined;
  for (const message of deps.messages.all(chatId)) {
    if (message.role !== 'assistant') continue;
    for (const turn of message.reply.turns)
      for (const record of turn.toolCalls ?? [])
        if (record.toolCallId === toolCallId) found = { record, exchangeId: message.exchangeId };
  }
  const task = found?.record.task;
  if (!found || !task || found.record.status !== 'running' || ENDED.has(task.status)) {
    throw new WorkbenchError('not_found', 'This chat has no tool call of that id running as a task.', {
      chatId,
      toolCallId,
    });
  }
  deps.audit.recordTask({
    ...callOf({ chatId, exchangeId: found.exchangeId }, found.record),
    event: 'cancel-requested',
    taskId: task.taskId,
    status: task.status,
    actor: 'user',
  });
  return { cancelled: deps.tools.cancelTask(toolCallId) };
}
