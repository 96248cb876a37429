import {
  DispatchError,
  JsonRpcResponseError,
  withTasks,
  type ApplicationInputRequest,
  type ConnectedMcpSessionPort,
  type JsonRpcResponse,
  type TaskEnabledSession,
  type TaskOutcome,
  type ToolExecution,
} from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue, TaskId } from '@modelcontextprotocol/ext-tasks/core';
import type {
  CreateMessageRequestParams,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolTaskState } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import { RawConnectionClosed, type RawRequests, type RawResponse } from './raw-requests';
import type { BoundServerRequests } from './server-request-routing';
import { asCallToolResult, LenientCallToolResultSchema, type LenientCallToolResult } from './tool-result';
import { FollowTakenOver, TASKS_EXTENSION, type ModernTaskOptions, type ModernTasks } from './tool-tasks';

/**
 * Tool calls run as tasks of the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`;
 * docs/dev/protocol-2026.md#tasks-on-2026-07-28, docs/user/mcp-servers.md#tasks), followed by the extension's own
 * client (`@modelcontextprotocol/ext-tasks`) over the host's raw request path (raw-requests.ts). Each call gets a
 * session port of its own, so that every leg it sends passes its call's door (call-door.ts) right before it goes out:
 * `tools/call` (the first and each `input_required` retry), `tasks/get` and `tasks/update`. `tasks/cancel` always
 * goes out: stopping work is never refused. A leg the door refuses ends the call with the refusal (the door wrote the
 * audit row naming the rule), the task is cancelled on the server, and its result, if it comes, is not delivered.
 * What a task asks of the person while `input_required` (sampling, elicitation) reaches the same
 * `BoundServerRequests` as any server request, under approval.
 */

/** What a 2026-07-28 session's raw path needs to run a call as a task. */
interface TaskSession {
  readonly raw: RawRequests;
  readonly serverRequests?: BoundServerRequests | undefined;
  readonly roots?: (() => { uri: string; name?: string }[]) | undefined;
}

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** The SDK's envelope with the extension declared: only the raw path's requests declare it. */
function framed(raw: RawRequests, params: Record<string, unknown>): Record<string, unknown> {
  const envelope = raw.envelope();
  if (!envelope)
    throw new DispatchError('The session has not sent a request yet, so its request envelope is not known.');
  const meta = (params['_meta'] as Record<string, unknown> | undefined) ?? {};
  const extensions = (envelope.clientCapabilities['extensions'] as Record<string, unknown> | undefined) ?? {};
  return {
    ...params,
    _meta: {
      ...meta,
      [PROTOCOL_VERSION_META]: envelope.protocolVersion,
      [CLIENT_INFO_META]: envelope.clientInfo,
      [CLIENT_CAPABILITIES_META]: {
        ...envelope.clientCapabilities,
        extensions: { ...extensions, [TASKS_EXTENSION]: {} },
      },
    },
  };
}

/**
 * One call's port: each leg but `tasks/cancel` passes the call's door first; a refusal is kept in `refusal`. `answered`
 * is the answer to the call's first `tools/call`, sent already (past the door) by `callToolAsModernTask`: that leg is
 * not sent again.
 */
function callPort(
  tasks: TaskSession,
  admit: () => void,
  refusal: { error?: unknown },
  serverName: string,
  answered: RawResponse | undefined,
): ConnectedMcpSessionPort {
  let firstAnswer = answered;
  return {
    endpointId: serverName,
    taskCapabilities: { generation: 'v2', capabilities: {} },
    get invalidated() {
      return tasks.raw.closed;
    },
    async dispatch(request, options) {
      const { method, params } = request as { method: string; params?: Record<string, unknown> };
      if (firstAnswer && method === 'tools/call') {
        const answer = firstAnswer;
        firstAnswer = undefined;
        return answer as unknown as JsonRpcResponse;
      }
      if (method !== 'tasks/cancel') {
        if (refusal.error) throw refusal.error;
        try {
          admit();
        } catch (error) {
          refusal.error = error;
          throw error;
        }
      }
      const answer: RawResponse = await tasks.raw.request(method, framed(tasks.raw, params ?? {}), options?.signal);
      return answer as unknown as JsonRpcResponse;
    },
    // 2026-07-28 has no server-to-client requests: a task asks through `inputRequests` (onInputRequest below).
    onServerRequest: () => () => undefined,
    onNotification: () => () => undefined,
    onInvalidated: () => () => undefined,
  };
}

/** What the task asks of the person, through the one approval engine (server-request-routing.ts). */
async function answerInput(
  tasks: TaskSession,
  serverName: string,
  request: ApplicationInputRequest,
  chatId: string | undefined,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const origin = { serverName, chatId: chatId ?? null, signal: signal ?? new AbortController().signal };
  if (request.kind === 'roots') return { roots: tasks.roots?.() ?? [] };
  const handler = tasks.serverRequests?.handler;
  if (request.kind === 'sampling') {
    if (!handler) throw new Error('This client does not answer sampling requests of this server.');
    return handler.sample(origin, request.params as unknown as CreateMessageRequestParams);
  }
  if (!handler) return { action: 'decline' };
  return handler.elicit(origin, request.params as unknown as ElicitRequestFormParams | ElicitRequestURLParams);
}

/** Any JSON object as the result: its parts are checked by the host (tool-result.ts), not dropped by a strict schema. */
const anyResult = {
  parse: (value: JsonValue) => ({ success: true as const, value: value as unknown as LenientCallToolResult }),
};

const say = (text: string | undefined): { statusMessage?: string } =>
  text === undefined ? {} : { statusMessage: text };

/** Whether an error means the server could not be reached: the task may still run there. */
function wentAway(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof RawConnectionClosed) return true;
    if (/fetch failed|ECONNREFUSED|ECONNRESET|socket hang up/i.test(String((cause as Error).message ?? cause)))
      return true;
  }
  return false;
}

type Execution = ToolExecution<LenientCallToolResult>;

const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * Drives one execution (a new call's or a followed task's) to its end: states reported, Cancel as `tasks/cancel`,
 * the door asked once more before the result is handed on. `answered`: the answer to the call's first leg, when it was
 * sent already (`callPort`).
 */
async function settle(
  start: (session: TaskEnabledSession, signal: AbortSignal) => Promise<Execution>,
  tasks: TaskSession,
  serverName: string,
  toolName: string,
  options: ModernTaskOptions,
  answered?: RawResponse,
): Promise<LenientCallToolResult> {
  const refusal: { error?: unknown } = {};
  const session = withTasks(callPort(tasks, options.admit, refusal, serverName, answered), {
    tools: { currentTool: () => undefined },
    onInputRequest: ((request: ApplicationInputRequest, context: { signal?: AbortSignal }) =>
      answerInput(tasks, serverName, request, options.chatId, context.signal)) as never,
    onError: () => undefined,
  });
  // Stops the first leg when Cancel comes before the task exists; a task created meanwhile is cancelled by ext-tasks.
  const beforeTask = new AbortController();
  let execution: Execution | undefined;
  let state: ToolTaskState | undefined;
  let cancelAsked = false;
  const report = (next: ToolTaskState): void => {
    if (state && state.status === next.status && state.statusMessage === next.statusMessage) return;
    state = next;
    options.onState(next);
  };
  const cancel = (): void => {
    cancelAsked = true;
    if (!execution) beforeTask.abort(new WorkbenchError('cancelled', cancelledText(toolName, serverName, true)));
    else
      void execution.cancel().catch((error: unknown) => {
        if (state) report({ ...state, statusMessage: `Cancel was refused: ${String(error)}` });
      });
  };
  if (options.cancel.aborted) cancel();
  else options.cancel.addEventListener('abort', cancel, { once: true });
  // The call's own stop and timeout, until the server answered with a task or without one.
  const untilTask = options.untilTask;
  const stopEarly = (): void => {
    if (!execution) beforeTask.abort(untilTask?.reason);
  };
  if (untilTask?.aborted) stopEarly();
  else untilTask?.addEventListener('abort', stopEarly, { once: true });
  let outcome: TaskOutcome<LenientCallToolResult>;
  try {
    try {
      execution = await start(session, beforeTask.signal);
      if (execution.kind === 'task' && options.cancel.aborted) cancel();
      ({ outcome } = await execution.settle({
        onEvent: (event) => {
          if (event.type !== 'task') return;
          const { taskId, status, statusMessage } = event.task;
          report({ taskId, status, ...say(statusMessage) });
        },
      }));
    } catch (error) {
      if (refusal.error) throw refusal.error;
      if (cancelAsked && !execution) throw error;
      if (untilTask?.aborted && !execution) throw untilTask.reason;
      if (wentAway(error)) throw leftWhileRunning(serverName, toolName);
      // The server answered the call with an error: as the SDK's own calls report it (server-supervisor.ts).
      if (error instanceof JsonRpcResponseError) throw new McpError(error.code, error.message, error.data);
      throw error;
    }
    if (refusal.error) {
      // A deny rule came into force while the task ran: it is stopped, and what it made is not handed on. Another
      // process that took the task over follows it from now on: it is left running.
      if (state && !ENDED.has(state.status) && !(refusal.error instanceof FollowTakenOver)) {
        const { taskId } = state;
        void tasks.raw.request('tasks/cancel', framed(tasks.raw, { taskId })).catch(() => {});
        report({ taskId, status: 'cancelled', statusMessage: 'Stopped: a deny rule in force refused it' });
      }
      throw refusal.error;
    }
    if (outcome.status === 'completed') {
      // The result reaches the model only past the door as it stands now.
      options.admit();
      if (state && state.status !== 'completed') report({ taskId: state.taskId, status: 'completed' });
      return LenientCallToolResultSchema.parse(outcome.result);
    }
    if (outcome.status === 'cancelled')
      throw new WorkbenchError('cancelled', cancelledText(toolName, serverName, cancelAsked));
    const failure = outcome.error;
    if (wentAway(failure)) throw leftWhileRunning(serverName, toolName);
    if (state && state.status !== 'failed') report({ taskId: state.taskId, status: 'failed', ...say(failure.message) });
    return { content: [{ type: 'text', text: `The task failed: ${failure.message}` }], isError: true };
  } finally {
    options.cancel.removeEventListener('abort', cancel);
    untilTask?.removeEventListener('abort', stopEarly);
    await session.close().catch(() => undefined);
  }
}

const cancelledText = (toolName: string, serverName: string, asked: boolean): string =>
  asked
    ? `The task of "${toolName}" on "${serverName}" was cancelled at your request; the server stopped it.`
    : `The task of "${toolName}" on "${serverName}" was cancelled by the server.`;

const leftWhileRunning = (serverName: string, toolName: string): WorkbenchError =>
  new WorkbenchError(
    'unavailable',
    `"${serverName}" went away while the task of "${toolName}" ran; it is followed again when the server is back.`,
    { server: serverName },
  );

/**
 * Calls a tool declaring the tasks extension, and runs what the server answers to its end: an immediate result as
 * is (the server decides whether a call becomes a task), a task followed until it completes, fails or is cancelled.
 * The first `tools/call` goes out here, past the door: most calls are answered at once, and those need none of the
 * extension's client, which costs more per call than the round trip (mcp-call-overhead-2026-tasks,
 * docs/dev/benchmarks.md). A task, a request for input or an error is handed to it with that answer.
 */
export async function callToolAsModernTask(
  tasks: TaskSession,
  serverName: string,
  toolName: string,
  args: Record<string, unknown>,
  options: ModernTaskOptions,
): Promise<LenientCallToolResult> {
  const answered = await firstLeg(tasks, serverName, toolName, args, options);
  if (answered.kind === 'result' && !EXTENSION_RESULTS.has(answered.result['resultType'])) {
    // The result reaches the model only past the door as it stands now.
    options.admit();
    return asCallToolResult(answered.result);
  }
  return settle(
    (session, signal) =>
      session.callTool<LenientCallToolResult>(toolName, args as Record<string, JsonValue>, {
        resultCodec: anyResult,
        signal,
      }),
    tasks,
    serverName,
    toolName,
    options,
    answered,
  );
}

/** The answers to `tools/call` that only the extension's client follows: a task, a request for input. */
const EXTENSION_RESULTS: ReadonlySet<unknown> = new Set(['task', 'input_required']);

/**
 * The call's first `tools/call`, declaring the extension, past the door; until it is answered the person's Cancel and
 * the call's own stop and timeout (`untilTask`) end it, as they end `settle`'s first leg. With `onProgress` it carries
 * a progress token, and the server's progress shows on the call (docs/user/mcp-servers.md#progress).
 */
async function firstLeg(
  tasks: TaskSession,
  serverName: string,
  toolName: string,
  args: Record<string, unknown>,
  options: ModernTaskOptions,
): Promise<RawResponse> {
  const { cancel, untilTask } = options;
  options.admit();
  try {
    return await tasks.raw.request(
      'tools/call',
      framed(tasks.raw, { name: toolName, arguments: args }),
      untilTask ? AbortSignal.any([cancel, untilTask]) : cancel,
      options.onProgress,
    );
  } catch (error) {
    if (cancel.aborted) throw new WorkbenchError('cancelled', cancelledText(toolName, serverName, true));
    if (untilTask?.aborted) throw untilTask.reason;
    if (wentAway(error)) throw leftWhileRunning(serverName, toolName);
    throw error;
  }
}

/** Follows a task this client created before (docs/user/mcp-servers.md#tasks): `tasks/get` until it ends. */
export function followModernTask(
  tasks: TaskSession,
  serverName: string,
  toolName: string,
  taskId: string,
  options: ModernTaskOptions,
): Promise<LenientCallToolResult> {
  return settle(
    async (session) => {
      try {
        return await session.resumeTask<LenientCallToolResult>(
          { endpointId: serverName, generation: 'v2', taskId: taskId as TaskId, originalOperation: 'tools/call' },
          { resultCodec: anyResult },
        );
      } catch (error) {
        if (wentAway(error) || error instanceof WorkbenchError || (error as Error).name === 'CallRefused') throw error;
        throw new WorkbenchError(
          'not_found',
          `The task of "${toolName}" was lost: "${serverName}" no longer knows it (${(error as Error).message}). It may have restarted or dropped the task while the app was closed.`,
          { server: serverName, taskId },
        );
      }
    },
    tasks,
    serverName,
    toolName,
    options,
  );
}

/** The tasks of a 2026-07-28 session (modern-client.ts puts them on the session; tool-tasks.ts `modernTasksOf`). */
export function createModernTasks(session: TaskSession & { offered: boolean }): ModernTasks {
  return {
    offered: session.offered,
    call: (toolName, args, options) => callToolAsModernTask(session, options.serverName, toolName, args, options),
    follow: (toolName, taskId, options) => followModernTask(session, options.serverName, toolName, taskId, options),
    cancel: async (taskId) => {
      await session.raw.request('tasks/cancel', framed(session.raw, { taskId }));
    },
  };
}
