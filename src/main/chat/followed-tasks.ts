import type { ChatMessage, ToolCallRecord, ToolTaskState } from '../../shared/messages';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { McpHost } from '../mcp/mcp-host';
import type { McpToolResult } from '../../shared/mcp-result';
import type { HolderKind } from '../approval/request-holders';
import type { Database } from '../storage/database';
import type { MessageStore } from './message-store';
import { updateStoredCall } from './task-calls';
import { createTaskClaims, FOLLOWER_REFRESH_MS } from './task-claims';

const ENDED = new Set<ToolTaskState['status']>(['completed', 'failed', 'cancelled']);

/**
 * Tool calls running as MCP tasks, followed across a restart (docs/user/mcp-servers.md#tasks): a row in
 * `followed_tasks` from the moment the task exists until the call's end is written. A call whose server went away
 * while its task ran (the app quit, the server restarted) is not ended: when its server is ready again — in this
 * process or after the next start — its task is looked up again (`tasks/get`), followed to its end and its result
 * written into its block, or the call is shown as lost with the reason when the server no longer knows the task or
 * the name now runs another server. Nothing new runs: no `tools/call` is sent, so nothing is decided again. One live
 * process follows a task (task-claims.ts): the app and `workbench chat` on one database do not both follow it, and
 * one takes it over from the other once that one is gone.
 */

export interface FollowedTask {
  toolCallId: string;
  chatId: string;
  messageId: string;
  exchangeId: string;
  serverName: string;
  /** What the server ran when the task was created (its identity key): another server under the name is not asked. */
  serverIdentity: string | null;
  toolName: string;
  definitionHash: string | null;
  taskId: string;
  createdAt: number;
}

export interface FollowedTasks {
  /** A task call's task was created here: recorded, and followed by its call. */
  started(task: FollowedTask): void;
  /** The call's end was written: no longer followed. */
  ended(toolCallId: string): void;
  /** The call lost its server while its task ran (not the task's end): left for `resume` when the server is back. */
  letGo(toolCallId: string): void;
  /** Whether the task of this call is recorded as followed (its call may have been let go). */
  has(toolCallId: string): boolean;
  /** Follows every recorded task that no call here follows and whose server is ready now. */
  resume(): void;
  /** Stops following (the services close): nothing more is written. */
  close(): void;
}

interface Row {
  tool_call_id: string;
  chat_id: string;
  message_id: string;
  exchange_id: string;
  server_name: string;
  server_identity: string | null;
  tool_name: string;
  definition_hash: string | null;
  task_id: string;
  created_at: number;
}

const taskOf = (row: Row): FollowedTask => ({
  toolCallId: row.tool_call_id,
  chatId: row.chat_id,
  messageId: row.message_id,
  exchangeId: row.exchange_id,
  serverName: row.server_name,
  serverIdentity: row.server_identity,
  toolName: row.tool_name,
  definitionHash: row.definition_hash,
  taskId: row.task_id,
  createdAt: row.created_at,
});

/**
 * Whether the task ran on a local (command) server (its identity key, src/main/mcp/server-identity.ts): such a task
 * lives in the server's process, which stops with the host that started it or when the server restarts.
 */
const ranLocally = (task: FollowedTask): boolean =>
  task.serverIdentity !== null &&
  (task.serverIdentity.startsWith('stdio:') || task.serverIdentity.startsWith('bundled:'));

export interface FollowedTasksDependencies {
  db: Database;
  messages: Pick<MessageStore, 'get' | 'replace'>;
  audit: Pick<AuditRecorder, 'recordTask' | 'recordToolResult'>;
  mcp: Pick<McpHost, 'followTask' | 'list'>;
  /** What the server by this name runs now (its identity key). */
  identityOf(serverName: string): string | undefined;
  /** A stored message changed: the chat's windows are told. */
  announce(message: ChatMessage): void;
  onError(error: unknown): void;
  /** What this process is, written into the rows it follows (src/main/approval/request-holders.ts). */
  holder?: HolderKind | undefined;
  now?: (() => number) | undefined;
}

export function createFollowedTasks(deps: FollowedTasksDependencies): FollowedTasks {
  const { db } = deps;
  const insert = db.prepare(
    `INSERT OR REPLACE INTO followed_tasks (tool_call_id, chat_id, message_id, exchange_id, server_name, server_identity,
       tool_name, definition_hash, task_id, created_at, follower, followed_at)
     VALUES (@toolCallId, @chatId, @messageId, @exchangeId, @serverName, @serverIdentity, @toolName, @definitionHash,
       @taskId, @createdAt, @follower, @followedAt)`,
  );
  const now = deps.now ?? Date.now;
  const claims = createTaskClaims(db, deps.holder, now);
  const any = db.prepare('SELECT 1 FROM followed_tasks LIMIT 1');
  const remove = db.prepare('DELETE FROM followed_tasks WHERE tool_call_id = ?');
  const all = db.prepare('SELECT * FROM followed_tasks ORDER BY created_at');
  const one = db.prepare('SELECT 1 FROM followed_tasks WHERE tool_call_id = ?');
  /** The calls whose task something in this process follows now. */
  const following = new Set<string>();
  let closed = false;
  /**
   * While any task is recorded: every second this process says it still follows its own, and looks again at those
   * it does not follow (one whose follower is gone is taken over; task-claims.ts).
   */
  let ticking: ReturnType<typeof setInterval> | undefined;
  const tick = (): void => {
    try {
      claims.refresh();
      if (any.get() === undefined && following.size === 0) {
        clearInterval(ticking);
        ticking = undefined;
        return;
      }
      resume();
    } catch (error) {
      deps.onError(error);
    }
  };
  const keepTicking = (): void => {
    if (ticking || closed) return;
    ticking = setInterval(tick, FOLLOWER_REFRESH_MS);
    ticking.unref?.();
  };

  const change = (task: FollowedTask, edit: (record: ToolCallRecord) => void): void => {
    if (closed) return;
    const updated = updateStoredCall(deps.messages, task.chatId, task.messageId, task.toolCallId, edit);
    if (updated) deps.announce(updated);
  };

  /** The call's end: written into its block, its result row (and task rows) in the audit log; no longer followed. */
  const finish = (task: FollowedTask, end: { result: McpToolResult } | { error: unknown }, lost?: string): void => {
    if (closed) return;
    let durationMs = 0;
    change(task, (record) => {
      delete record.progress;
      if ('result' in end) {
        record.result = end.result;
        record.status = end.result.isError ? 'error' : 'success';
        delete record.error;
      } else {
        const cancelled = end.error instanceof WorkbenchError && end.error.code === 'cancelled';
        record.status = cancelled ? 'cancelled' : 'error';
        record.error = lost ?? (end.error instanceof Error ? end.error.message : String(end.error));
      }
      durationMs = Math.max(0, Date.now() - (record.startedAt ?? task.createdAt));
      record.durationMs = durationMs;
    });
    try {
      deps.audit.recordToolResult({
        chatId: task.chatId,
        exchangeId: task.exchangeId,
        toolCallId: task.toolCallId,
        serverName: task.serverName,
        toolName: task.toolName,
        definitionHash: task.definitionHash ?? undefined,
        outcome: 'result' in end && !end.result.isError ? 'success' : 'error',
        durationMs,
        resultBytes: 'result' in end ? end.result.sizeBytes : 0,
        error:
          'result' in end
            ? end.result.isError
              ? end.result.forModel.text.slice(0, 500) || 'the tool reported an error'
              : undefined
            : (lost ?? (end.error instanceof Error ? end.error.message : String(end.error))),
      });
    } catch (error) {
      deps.onError(error);
    }
    remove.run(task.toolCallId);
    following.delete(task.toolCallId);
  };

  /** What a followed task's states write: the stored call's task, and the task's `ended` row once. */
  const stateWriter = (task: FollowedTask): ((state: ToolTaskState) => void) => {
    // Its `started` row was written when the task was created: only its end is written from here.
    let endRow = false;
    const onState = (state: ToolTaskState): void => {
      if (closed) return;
      if (ENDED.has(state.status) && !endRow) {
        endRow = true;
        try {
          deps.audit.recordTask({
            chatId: task.chatId,
            exchangeId: task.exchangeId,
            toolCallId: task.toolCallId,
            serverName: task.serverName,
            toolName: task.toolName,
            definitionHash: task.definitionHash ?? undefined,
            event: 'ended',
            taskId: task.taskId,
            status: state.status,
            statusMessage: state.statusMessage,
            actor: 'system',
          });
        } catch (error) {
          deps.onError(error);
        }
      }
      change(task, (stored) => {
        stored.task = state;
      });
    };
    return onState;
  };

  /** The call cannot be followed: its task shown failed with the reason, and the call's end written as lost. */
  const lose = (task: FollowedTask, reason: string): void => {
    following.add(task.toolCallId);
    stateWriter(task)({ taskId: task.taskId, status: 'failed', statusMessage: reason });
    finish(task, { error: new Error(reason) }, reason);
  };

  const follow = (task: FollowedTask): void => {
    following.add(task.toolCallId);
    const identity = deps.identityOf(task.serverName);
    if (task.serverIdentity !== null && identity !== task.serverIdentity) {
      lose(
        task,
        `The task of "${task.toolName}" was lost: "${task.serverName}" now runs another server than the one that ran it, so it was not asked.`,
      );
      return;
    }
    const onState = stateWriter(task);
    deps.mcp
      .followTask({
        serverName: task.serverName,
        toolName: task.toolName,
        taskId: task.taskId,
        toolCallId: task.toolCallId,
        chatId: task.chatId,
        onTask: onState,
      })
      .then(
        (result) => finish(task, { result }),
        (error: unknown) => {
          if (closed) return;
          if (error instanceof WorkbenchError && error.code === 'unavailable') {
            // Its server went away again while it was followed: followed when it is back, here or elsewhere.
            following.delete(task.toolCallId);
            claims.release(task.toolCallId);
            return;
          }
          if (error instanceof WorkbenchError && error.code === 'not_found') return lose(task, error.message);
          finish(task, { error });
        },
      )
      .catch(deps.onError);
  };

  function resume(): void {
    if (closed) return;
    const servers = new Map(deps.mcp.list().map((server) => [server.name, server.status.state]));
    for (const task of (all.all() as Row[]).map(taskOf)) {
      if (following.has(task.toolCallId)) continue;
      keepTicking();
      let message: ChatMessage | undefined;
      try {
        message = deps.messages.get(task.chatId, task.messageId);
      } catch {
        message = undefined;
      }
      const call =
        message?.role === 'assistant'
          ? message.reply.turns
              .flatMap((turn) => turn.toolCalls ?? [])
              .find((candidate) => candidate.toolCallId === task.toolCallId)
          : undefined;
      // The chat or the call is gone, or its end was written: nothing to follow.
      if (!call || call.status !== 'running') {
        remove.run(task.toolCallId);
        continue;
      }
      const state = servers.get(task.serverName);
      const local = ranLocally(task);
      // Followed by another live process, or not to be followed now: left to it, and looked at again.
      if ((local || state === undefined || state === 'ready') && !claims.claim(task.toolCallId)) continue;
      if (local) {
        // No live call follows it, so the process it lived in is gone: nothing to ask the server's next process.
        lose(
          task,
          `The task of "${task.toolName}" ended with its server: "${task.serverName}" is a local (command) server, which stopped when the app quit or the server restarted, and its task stopped with it. Only a server that outlives the app (an HTTP server) can be followed after a restart.`,
        );
        continue;
      }
      if (state === undefined) {
        lose(
          task,
          `The task of "${task.toolName}" was lost: no server is named "${task.serverName}" any more, so it cannot be asked about it.`,
        );
        continue;
      }
      if (state === 'ready') follow(task);
    }
  }

  return {
    started(task) {
      following.add(task.toolCallId);
      insert.run({ ...task, follower: claims.follower, followedAt: now() });
      keepTicking();
    },
    ended(toolCallId) {
      following.delete(toolCallId);
      if (!closed) remove.run(toolCallId);
    },
    letGo(toolCallId) {
      following.delete(toolCallId);
      claims.release(toolCallId);
    },
    has: (toolCallId) => !closed && one.get(toolCallId) !== undefined,
    resume,
    close() {
      closed = true;
      clearInterval(ticking);
      try {
        claims.close();
      } catch (error) {
        deps.onError(error);
      }
    },
  };
}
