import type { ToolCallRecord } from '../../shared/messages';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { McpHost } from '../mcp/mcp-host';
import type { MessageStore } from './message-store';
import { ENDED_TASK } from './task-call-status';

/**
 * The chat's side of tool calls made as MCP tasks (docs/user/mcp-servers.md#tasks): a call that goes on after the
 * reply stopped, and the person's Cancel. What a task call records as its task changes and when it ends is
 * task-call-status.ts's. The call itself was decided, admitted at the door and audited like any call before its task
 * existed; nothing here starts one.
 */

const callOf = (context: { chatId: string; exchangeId: string }, record: ToolCallRecord) => ({
  chatId: context.chatId,
  exchangeId: context.exchangeId,
  toolCallId: record.toolCallId,
  serverName: record.serverName,
  toolName: record.toolName,
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
  if (!found || !task || found.record.status !== 'running' || ENDED_TASK.has(task.status)) {
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
