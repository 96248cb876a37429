import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolProgress, ToolTaskState } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import type { McpSession } from './mcp-session';
import { LenientCallToolResultSchema, type LenientCallToolResult } from './tool-result';

/**
 * Tool calls made as MCP tasks (docs/user/mcp-servers.md#tasks), through the 1.x SDK's experimental tasks client:
 * `tools/call` with a `task` creates the task on the server, `tasks/get` is polled for its status (its status message
 * is the call's progress), `tasks/result` brings the result — and, while the task is `input_required`, the requests
 * the task makes of the person (elicitation), which reach the one approval engine like any server request. The
 * person's Cancel sends `tasks/cancel`.
 *
 * A task call is decided, passes the door and is audited exactly like any other call before the task exists: this
 * module only runs what the supervisor already admitted. Once the task exists, each further leg but `tasks/cancel`
 * passes the call's door again (`followTask`), and the result once more before it is handed on.
 */

/** Whether a tool is called as a task: only when it says it must be (`execution.taskSupport: "required"`). */
export const runsAsTask = (taskSupport: string | undefined): boolean => taskSupport === 'required';

/** The 2026-07-28 revision's tasks extension (docs/dev/protocol-2026.md#tasks-on-2026-07-28). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** JSON-RPC `-32021`, Missing Required Client Capability (2026-07-28). */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/**
 * Whether a server refused a call because it runs the tool only as a task of the tasks extension: `-32021` naming the
 * extension among the capabilities it requires. AI Workbench's calls through the SDK v2 client do not declare the
 * extension (the client cannot receive a task handle, docs/dev/protocol-2026.md#tasks-on-2026-07-28): a call to a server
 * that offered it goes out on the host's raw path declaring it (modern-tasks.ts), so only a server that did not offer
 * it refuses a call so.
 */
export function needsTasksExtension(code: number, data: unknown): boolean {
  if (code !== MISSING_REQUIRED_CLIENT_CAPABILITY) return false;
  const required = (data as { requiredCapabilities?: { extensions?: unknown } } | null | undefined)
    ?.requiredCapabilities?.extensions;
  return typeof required === 'object' && required !== null && Object.hasOwn(required, TASKS_EXTENSION);
}

/**
 * Whether the SDK v2 client refused a task handle (`resultType: "task"`) the server sent although the host did not
 * declare the extension: a server that breaks the extension's rule. The SDK keeps the handle to itself, so the task
 * cannot be followed or cancelled from here.
 */
export function isUnaskedTaskHandle(error: unknown): boolean {
  const { code, data } = (error ?? {}) as { code?: unknown; data?: { resultType?: unknown } };
  return code === 'UNSUPPORTED_RESULT_TYPE' && data?.resultType === 'task';
}

/**
 * What the person and the model are told when a 2026-07-28 server runs a tool only as a task but did not offer the
 * extension in its `server/discover` answer, so the call is not made again declaring it.
 */
export const tasksExtensionRefusal = (toolName: string, serverName: string): string =>
  `"${toolName}" on "${serverName}" runs only as a task of the MCP tasks extension (protocol 2026-07-28), which ` +
  'the server did not offer (docs/user/mcp-servers.md#tasks); the tool did not run';

/** What the person and the model are told when a server answered a call with a task it was not offered. */
export const unaskedTaskHandle = (toolName: string, serverName: string): string =>
  `"${serverName}" answered the call to "${toolName}" with a task, although AI Workbench did not offer the MCP ` +
  'tasks extension (docs/user/mcp-servers.md#tasks): the result cannot be fetched, and the task, which may still ' +
  'run on the server, cannot be cancelled from here';

/** The options of a call run as a task of the 2026-07-28 extension (modern-tasks.ts). */
export interface ModernTaskOptions extends TaskCallOptions {
  /** The server's name, as the person knows it. */
  serverName: string;
  /** The call's door (call-door.ts): throws `CallRefused` to keep a leg from the server. */
  admit(): void;
  /** The chat whose person answers what the task asks (sampling, elicitation). */
  chatId?: string | undefined;
  /**
   * Stops the call while no task exists yet, with its reason as the call's error: the call's own stop and timeout,
   * which hold for an answer that is not a task (the server decides, docs/dev/protocol-2026.md#tasks-on-2026-07-28).
   */
  untilTask?: AbortSignal | undefined;
  /** The server's `notifications/progress` for the call's first `tools/call` (its answer may not be a task). */
  onProgress?: ((progress: ToolProgress) => void) | undefined;
}

/**
 * A 2026-07-28 session's tasks of the extension (modern-tasks.ts), loaded with the v2 client: each leg passes the
 * call's door, what the task asks goes to the approval engine.
 */
export interface ModernTasks {
  /** Whether the server offered the extension in its `server/discover` answer. */
  readonly offered: boolean;
  /** Calls the tool declaring the extension, and runs an answered task to its end. */
  call(toolName: string, args: Record<string, unknown>, options: ModernTaskOptions): Promise<LenientCallToolResult>;
  /** Follows a task created before the host restarted: `tasks/get` until it ends. */
  follow(toolName: string, taskId: string, options: ModernTaskOptions): Promise<LenientCallToolResult>;
  /** Asks the server to stop a task (`tasks/cancel`): never refused. */
  cancel(taskId: string): Promise<void>;
}

/** The tasks of a 2026-07-28 session whose server offers the extension; undefined for any other session. */
export function modernTasksOf(session: unknown): ModernTasks | undefined {
  const tasks = (session as { modernTasks?: ModernTasks } | null)?.modernTasks;
  return tasks?.offered ? tasks : undefined;
}

export interface TaskCallOptions {
  /** The person's Cancel: sends `tasks/cancel` for the task (at once, or as soon as it exists). */
  cancel: AbortSignal;
  /** The task's state, each time it is seen to change: created, each status and status message, its end. */
  onState(state: ToolTaskState): void;
  /**
   * Whether this process still follows the task (src/main/chat/task-claims.ts), asked right before each leg: when it
   * no longer does, no leg is sent and the call stops here with `FollowTakenOver`, the task left to its new follower.
   */
  stillFollowed?: (() => boolean) | undefined;
}

/**
 * Another process took the following of this task over (src/main/chat/task-claims.ts): it stops here without a word to
 * the server — the task goes on, its new follower writes its end. `unavailable`, as a task whose server went away.
 */
export class FollowTakenOver extends WorkbenchError {
  constructor(toolName: string, serverName: string) {
    super(
      'unavailable',
      `Another process follows the task of "${toolName}" on "${serverName}" now: it is no longer followed here.`,
      { server: serverName },
    );
  }
}

/** The SDK's `ErrorCode.ConnectionClosed`: the transport closed with the request unanswered. */
const CONNECTION_CLOSED = -32000;

/** The SDK's request timeout, turned off: a task runs until it ends, fails, is cancelled or its server's TTL lapses. */
const NO_TIMEOUT_MS = 2_147_483_647;

type TasksClient = Client['experimental']['tasks'];

function tasksOf(session: McpSession, serverName: string): TasksClient {
  const experimental = (session as Partial<Client>).experimental;
  if (!experimental?.tasks) {
    throw new WorkbenchError(
      'unavailable',
      `The MCP server "${serverName}" speaks a protocol revision whose tasks this app cannot run yet (docs/user/mcp-servers.md#tasks).`,
      { server: serverName },
    );
  }
  return experimental.tasks;
}

/**
 * Runs one admitted tool call as a task, to its end: the raw result when it completed, a `cancelled` error when
 * cancelled. The SDK sends `tools/call` with a `task`; once the server answered with the task, it is followed here
 * (`followTask`), not by the SDK's own polling, so that each further leg passes the call's door (`admit`) as a
 * followed task's does: a deny rule that comes into force while it runs stops it before its next `tasks/get`.
 */
export async function callToolAsTask(
  session: McpSession,
  serverName: string,
  toolName: string,
  args: Record<string, unknown>,
  options: TaskCallOptions & { admit(): void },
): Promise<LenientCallToolResult> {
  const tasks = tasksOf(session, serverName);
  // What callToolStream does, with the result schema that keeps parts of unknown kinds (tool-result.ts); the output
  // schema is checked by the caller, as for any call. The stream is left at its first item: nothing more is sent.
  const stream = tasks.requestStream(
    { method: 'tools/call', params: { name: toolName, arguments: args } },
    LenientCallToolResultSchema,
    { task: {}, timeout: NO_TIMEOUT_MS },
  );
  for await (const item of stream) {
    if (item.type === 'taskCreated') {
      const { taskId, status, statusMessage } = item.task;
      options.onState({ taskId, status, ...message(statusMessage) });
      return followTask(session, serverName, toolName, taskId, options, { status, ...message(statusMessage) });
    }
    // A server may answer a task request with a plain result.
    if (item.type === 'result') return item.result as LenientCallToolResult;
    if (item.type === 'error') {
      // The connection closed before the task existed, as far as this client knows: it may exist and run.
      if ((item.error as { code?: unknown }).code === CONNECTION_CLOSED)
        throw new WorkbenchError(
          'unavailable',
          `"${serverName}" went away while the task of "${toolName}" was being created; it is followed again when the server is back.`,
          { server: serverName },
        );
      throw item.error;
    }
  }
  throw new WorkbenchError('unavailable', `The task of "${toolName}" on "${serverName}" ended without a result.`);
}

/** How long to wait between two looks at a followed task when its server gives no poll interval. */
const DEFAULT_POLL_MS = 1_000;

/** Asks the server to stop a task (`tasks/cancel`) of a session that is not 2026-07-28: never refused. */
export async function cancelTask(session: McpSession, serverName: string, taskId: string): Promise<void> {
  await tasksOf(session, serverName).cancelTask(taskId, { timeout: 30_000 });
}

/**
 * Follows a task this client created before (the host restarted while it ran; docs/user/mcp-servers.md#tasks):
 * `tasks/get` until it ends, then `tasks/result`. No `tools/call` is sent: nothing new runs. A server that no longer
 * knows the task answers `tasks/get` with an error: that is a `not_found` here, with the reason in words. Each leg
 * but `tasks/cancel` passes the call's door (`admit`, with the call's arguments) right before it is sent, and once more
 * before the result is handed on: a leg it refuses is not sent, the task is cancelled and the refusal thrown.
 */
export async function followTask(
  session: McpSession,
  serverName: string,
  toolName: string,
  taskId: string,
  options: TaskCallOptions & { admit(): void },
  created?: Omit<ToolTaskState, 'taskId'>,
): Promise<LenientCallToolResult> {
  const tasks = tasksOf(session, serverName);
  // A task this call just created (its state already reported), or one made before a restart, not seen yet.
  let state: ToolTaskState | undefined = created && { taskId, ...created };
  const report = (next: ToolTaskState): void => {
    if (state && state.status === next.status && state.statusMessage === next.statusMessage) return;
    state = next;
    options.onState(next);
  };
  let cancelAsked = false;
  let cancelled: Promise<void> | undefined;
  const cancel = (): void => {
    cancelAsked = true;
    cancelled = tasks.cancelTask(taskId, { timeout: 30_000 }).then(
      (task) => report({ taskId, status: task.status, ...message(task.statusMessage) }),
      () => undefined,
    );
  };
  const cancelledError = (): WorkbenchError =>
    new WorkbenchError(
      'cancelled',
      cancelAsked
        ? `The task of "${toolName}" on "${serverName}" was cancelled at your request; the server stopped it.`
        : `The task of "${toolName}" on "${serverName}" was cancelled by the server.`,
    );
  const wentAway = (): WorkbenchError =>
    new WorkbenchError(
      'unavailable',
      `"${serverName}" went away while the task of "${toolName}" ran; it is followed again when the server is back.`,
      { server: serverName },
    );
  // Cancel may have come before the task existed: it is cancelled the moment it does.
  if (options.cancel.aborted) cancel();
  else options.cancel.addEventListener('abort', cancel, { once: true });
  /** The door before a leg: a refusal stops the task on the server (its cancel always goes out). */
  const admit = (): void => {
    try {
      options.admit();
    } catch (error) {
      if (error instanceof FollowTakenOver) throw error;
      void tasks.cancelTask(taskId, { timeout: 30_000 }).catch(() => undefined);
      if (state && state.status !== 'cancelled')
        report({ taskId, status: 'cancelled', statusMessage: 'Stopped: a deny rule in force refused it' });
      throw error;
    }
  };
  try {
    for (;;) {
      let task;
      admit();
      try {
        task = await tasks.getTask(taskId, { timeout: 30_000 });
      } catch (error) {
        if ((error as { code?: unknown }).code === CONNECTION_CLOSED) throw wentAway();
        if (state === undefined)
          throw new WorkbenchError(
            'not_found',
            `The task of "${toolName}" was lost: "${serverName}" no longer knows it (${String(error).replace(/^(?:McpError: )?(?:MCP error -?\d+: )+/, '')}). It may have restarted or dropped the task while the app was closed.`,
            { server: serverName, taskId },
          );
        throw error;
      }
      report({ taskId, status: task.status, ...message(task.statusMessage) });
      // `input_required`: tasks/result delivers what the task asks of the person and waits for its end, as the SDK does.
      if (task.status === 'completed' || task.status === 'input_required') {
        admit();
        let result: LenientCallToolResult;
        try {
          result = (await tasks.getTaskResult(taskId, LenientCallToolResultSchema, {
            timeout: NO_TIMEOUT_MS,
          })) as LenientCallToolResult;
        } catch (error) {
          if ((error as { code?: unknown }).code === CONNECTION_CLOSED) throw wentAway();
          // Cancelled while it waited (for an answer of the person, or to end): the server ends the wait with an error.
          if (cancelAsked) {
            await cancelled;
            throw cancelledError();
          }
          throw error;
        }
        // The result reaches the model only past the door as it stands now.
        options.admit();
        return result;
      }
      if (task.status === 'cancelled') throw cancelledError();
      if (task.status === 'failed')
        return {
          content: [{ type: 'text', text: `The task failed${task.statusMessage ? `: ${task.statusMessage}` : '.'}` }],
          isError: true,
        };
      await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? DEFAULT_POLL_MS));
    }
  } finally {
    options.cancel.removeEventListener('abort', cancel);
  }
}

const message = (text: string | undefined): { statusMessage?: string } =>
  text === undefined ? {} : { statusMessage: text };

/** The task calls running in one host, by their call id, so that the person's Cancel reaches the right one. */
export interface RunningTasks {
  /** A controller whose abort cancels the task of this call; dropped when the call ends (`done`). */
  add(toolCallId: string): { signal: AbortSignal; done(): void };
  /** Asks the task of this call to stop; false when no task call of that id runs here. */
  cancel(toolCallId: string): boolean;
}

export function createRunningTasks(): RunningTasks {
  const running = new Map<string, AbortController>();
  return {
    add(toolCallId) {
      const controller = new AbortController();
      running.set(toolCallId, controller);
      return {
        signal: controller.signal,
        done: () => {
          if (running.get(toolCallId) === controller) running.delete(toolCallId);
        },
      };
    },
    cancel(toolCallId) {
      const controller = running.get(toolCallId);
      if (!controller) return false;
      controller.abort();
      return true;
    },
  };
}
