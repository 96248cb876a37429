import type { AssistantChatMessage, ToolCallRecord, ToolTaskState } from '../../shared/messages';
import type { McpToolResult } from '../../shared/mcp-result';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import { CallRefused } from '../mcp/call-door';
import type { MessageStore } from './message-store';

/**
 * The one owner of what a tool call running as an MCP task records (docs/user/mcp-servers.md#tasks,
 * docs/dev/architecture.md#tool-calls-that-run-as-tasks): each state of its task — its task rows in the audit log,
 * the state stored into the call's block and announced — and the call's end once the reply no longer waits for it —
 * written into its block, its result row, no longer followed, announced. The live call (tool-loop.ts) and a task
 * followed again after a restart (followed-tasks.ts) both go through here.
 */

export const ENDED_TASK = new Set<ToolTaskState['status']>(['completed', 'failed', 'cancelled']);

/** Where a task call's block is stored, and who its audit rows are about. */
export interface TaskCallPlace {
  chatId: string;
  messageId: string;
  exchangeId: string;
  toolCallId: string;
  serverName: string;
  toolName: string;
  definitionHash?: string | undefined;
}

/** How a task call ended: with the server's result, or with an error (cancelled, lost, failed). */
export type TaskCallEnd = { result: McpToolResult } | { error: unknown };

export interface TaskCallStatusDependencies {
  messages: Pick<MessageStore, 'get' | 'replace'>;
  audit: Pick<AuditRecorder, 'recordTask' | 'recordToolResult'>;
  /** The call's end was written: its task is no longer followed (followed-tasks.ts). */
  followEnded?(toolCallId: string): void;
  /** A stored message changed: the chat's windows (and the CLI) are told. */
  announce(message: AssistantChatMessage): void;
  onError(error: unknown): void;
  /**
   * Whether the services still run. Once they close nothing more is written: a state or an end that comes later (a
   * task's answer still on its way as the app quits) is not its end, and a task still recorded as followed is followed
   * again at the next start (followed-tasks.ts).
   */
  open(): boolean;
}

export interface TaskCallOptions {
  /** Whether the task's `started` row was written already (a followed task's was, when its task was created). */
  startedRowWritten: boolean;
  /** How long the call took, at its end. */
  durationMs(stored: ToolCallRecord): number;
  /** Announces a state instead of the stored message (the live call shows its own record while its reply runs). */
  announceState?(): void;
}

export interface TaskCallStatus {
  /**
   * Its task's state: the `started` row when first seen, the `ended` row once it ends; stored into the call's block
   * (unless `stored`: the caller has just stored the whole reply with it) and announced.
   */
  changed(state: ToolTaskState, options?: { stored?: boolean }): void;
  /** The call's end: its block, its result row, no longer followed, announced. */
  ended(end: TaskCallEnd): void;
}

export function createTaskCallStatus(
  deps: TaskCallStatusDependencies,
  place: TaskCallPlace,
  options: TaskCallOptions,
): TaskCallStatus {
  let startedRow = options.startedRowWritten;
  let endedRow = false;
  const row = (event: 'started' | 'ended', state: ToolTaskState, message: boolean): void => {
    try {
      deps.audit.recordTask({
        ...auditedCall(place),
        event,
        taskId: state.taskId,
        status: state.status,
        ...(message ? { statusMessage: state.statusMessage } : {}),
        actor: 'system',
      });
    } catch (error) {
      deps.onError(error);
    }
  };
  const rows = (state: ToolTaskState): void => {
    if (!startedRow) {
      startedRow = true;
      row('started', state, true);
      // A task that ends at once (cancelled as it was created) has both rows.
      if (ENDED_TASK.has(state.status) && !endedRow) {
        endedRow = true;
        row('ended', state, false);
      }
      return;
    }
    if (ENDED_TASK.has(state.status) && !endedRow) {
      endedRow = true;
      row('ended', state, true);
    }
  };
  const store = (change: (record: ToolCallRecord) => void): AssistantChatMessage | undefined => {
    try {
      return updateStoredCall(deps.messages, place.chatId, place.messageId, place.toolCallId, change);
    } catch (error) {
      deps.onError(error);
      return undefined;
    }
  };
  return {
    changed(state, changeOptions) {
      if (!deps.open()) return;
      rows(state);
      if (changeOptions?.stored) return;
      const updated = store((stored) => {
        stored.task = state;
      });
      if (options.announceState) options.announceState();
      else if (updated) deps.announce(updated);
    },
    ended(end) {
      if (!deps.open()) return;
      let written: ToolCallRecord | undefined;
      // A deny rule in force kept a leg of the task out (call-door.ts): shown denied as a refused call is (tool-loop.ts);
      // the door wrote the auto_deny row naming the rule, and no result reaches the model, so there is no result row.
      const refused = 'error' in end && end.error instanceof CallRefused ? end.error : undefined;
      const updated = store((record) => {
        delete record.progress;
        if (refused) {
          record.status = 'denied';
          record.decision = { outcome: 'deny', actor: 'policy', reason: refused.reason };
          record.error = refused.reason;
        } else if ('result' in end) {
          record.result = end.result;
          record.status = end.result.isError ? 'error' : 'success';
          delete record.error;
        } else {
          const cancelled = end.error instanceof WorkbenchError && end.error.code === 'cancelled';
          record.status = cancelled ? 'cancelled' : 'error';
          record.error = end.error instanceof Error ? end.error.message : String(end.error);
        }
        record.durationMs = options.durationMs(record);
        written = record;
      });
      try {
        deps.followEnded?.(place.toolCallId);
      } catch (error) {
        deps.onError(error);
      }
      if (refused) {
        if (updated) deps.announce(updated);
        return;
      }
      try {
        deps.audit.recordToolResult({
          ...auditedCall(place),
          outcome: 'result' in end && !end.result.isError ? 'success' : 'error',
          durationMs: written?.durationMs ?? 0,
          resultBytes: 'result' in end ? end.result.sizeBytes : 0,
          error:
            'result' in end
              ? end.result.isError
                ? end.result.forModel.text.slice(0, 500) || 'the tool reported an error'
                : undefined
              : end.error instanceof Error
                ? end.error.message
                : String(end.error),
        });
      } catch (error) {
        // The task ran and its decision row is in the log; a lost result row must not lose the result itself.
        deps.onError(error);
      }
      if (updated) deps.announce(updated);
    },
  };
}

const auditedCall = (place: TaskCallPlace) => ({
  chatId: place.chatId,
  exchangeId: place.exchangeId,
  toolCallId: place.toolCallId,
  serverName: place.serverName,
  toolName: place.toolName,
  definitionHash: place.definitionHash,
});

/**
 * Writes a change into the stored call (the reply may have been saved again since the loop let the task go); nothing
 * when the chat or the call is gone.
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
