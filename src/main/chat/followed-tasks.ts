import type { ChatMessage } from '../../shared/messages';
import type { AuditRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { McpHost } from '../mcp/mcp-host';
import type { HolderKind } from '../approval/request-holders';
import type { Database } from '../storage/database';
import type { MessageStore } from './message-store';
import { createTaskCallStatus, type TaskCallStatus } from './task-call-status';
import { createTaskClaims, FOLLOWER_REFRESH_MS } from './task-claims';

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
  /**
   * Whether this process may send the next leg of this call's task (task-claims.ts `keep`): a call whose task is not
   * recorded yet may; one recorded here whose row now names another process, or is gone, may not.
   */
  stillFollows(toolCallId: string): boolean;
  /** Follows every recorded task that no call here follows and whose server is ready now. */
  resume(): void;
  /** Whether the services still run (`close` not called): a task call's state and end are written only then. */
  isOpen(): boolean;
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
  /** The calls whose task this process recorded or took: their row must name it for a leg to go out. */
  const held = new Set<string>();
  const stillFollows = (toolCallId: string): boolean => {
    if (closed) return true;
    if (claims.keep(toolCallId)) return true;
    return !held.has(toolCallId) && one.get(toolCallId) === undefined;
  };
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

  /** What a followed task records as its task changes and when the call ends (task-call-status.ts); nothing once closed. */
  const statusOf = (task: FollowedTask): TaskCallStatus =>
    createTaskCallStatus(
      {
        messages: deps.messages,
        audit: deps.audit,
        followEnded: (toolCallId) => {
          remove.run(toolCallId);
          following.delete(toolCallId);
          held.delete(toolCallId);
        },
        announce: deps.announce,
        onError: deps.onError,
        open: () => !closed,
      },
      { ...task, definitionHash: task.definitionHash ?? undefined },
      {
        // Its `started` row was written when the task was created: only its end is written from here.
        startedRowWritten: true,
        durationMs: (record) => Math.max(0, Date.now() - (record.startedAt ?? task.createdAt)),
      },
    );

  /** The call cannot be followed: its task shown failed with the reason, and the call's end written as lost. */
  const lose = (task: FollowedTask, reason: string): void => {
    following.add(task.toolCallId);
    const status = statusOf(task);
    status.changed({ taskId: task.taskId, status: 'failed', statusMessage: reason });
    status.ended({ error: new Error(reason) });
  };

  /** Which task of which call the host is asked to follow. */
  const taskOfCall = ({ serverName, toolName, taskId, toolCallId, chatId }: FollowedTask) => ({
    serverName,
    toolName,
    taskId,
    toolCallId,
    chatId,
  });

  /**
   * Follows the task. Each leg passes the door with the call's arguments, read from its record in the chat (the one
   * copy; `undefined` when the record is gone: the host then cancels the task rather than send a leg it cannot check).
   */
  const follow = (task: FollowedTask, args: Record<string, unknown> | undefined): void => {
    following.add(task.toolCallId);
    const identity = deps.identityOf(task.serverName);
    if (task.serverIdentity !== null && identity !== task.serverIdentity) {
      lose(
        task,
        `The task of "${task.toolName}" was lost: "${task.serverName}" now runs another server than the one that ran it, so it was not asked.`,
      );
      return;
    }
    const status = statusOf(task);
    deps.mcp
      .followTask({
        ...taskOfCall(task),
        exchangeId: task.exchangeId,
        definitionHash: task.definitionHash ?? undefined,
        args,
        onTask: status.changed,
        stillFollowed: () => stillFollows(task.toolCallId),
      })
      .then(
        (result) => status.ended({ result }),
        (error: unknown) => {
          if (closed) return;
          if (error instanceof WorkbenchError && error.code === 'unavailable') {
            // Its server went away again while it was followed: followed when it is back, here or elsewhere.
            following.delete(task.toolCallId);
            claims.release(task.toolCallId);
            return;
          }
          if (error instanceof WorkbenchError && error.code === 'not_found') return lose(task, error.message);
          status.ended({ error });
        },
      )
      .catch(deps.onError);
  };

  /** A task whose call's record is gone: the host cancels it, refusing to follow it (its reason in the server's log). */
  const cancelUnread = (task: FollowedTask): void => {
    following.add(task.toolCallId);
    deps.mcp
      .followTask({
        ...taskOfCall(task),
        args: undefined,
        onTask: () => undefined,
      })
      .catch(() => undefined)
      .finally(() => {
        following.delete(task.toolCallId);
        if (!closed) remove.run(task.toolCallId);
      })
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
      // Its end was written: nothing to follow.
      if (call && call.status !== 'running') {
        remove.run(task.toolCallId);
        continue;
      }
      const state = servers.get(task.serverName);
      const local = ranLocally(task);
      if (!call) {
        // The chat or the call is gone, and with it the call's arguments: its legs cannot be checked against the
        // rules, so it is not followed. A task the server may still run is cancelled there once it is ready.
        if (local || state === undefined) remove.run(task.toolCallId);
        else if (state === 'ready' && claims.claim(task.toolCallId)) cancelUnread(task);
        continue;
      }
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
      if (state === 'ready') {
        held.add(task.toolCallId);
        follow(task, call.args);
      }
    }
  }

  return {
    started(task) {
      following.add(task.toolCallId);
      held.add(task.toolCallId);
      insert.run({ ...task, follower: claims.follower, followedAt: now() });
      keepTicking();
    },
    ended(toolCallId) {
      following.delete(toolCallId);
      held.delete(toolCallId);
      if (!closed) remove.run(toolCallId);
    },
    letGo(toolCallId) {
      following.delete(toolCallId);
      claims.release(toolCallId);
    },
    has: (toolCallId) => !closed && one.get(toolCallId) !== undefined,
    stillFollows,
    resume,
    isOpen: () => !closed,
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
