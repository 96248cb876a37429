/**
 * A 2026-07-28 MCP server over stdio that speaks the tasks extension (`io.modelcontextprotocol/tasks`, the extension's
 * 2026-07-28 specification; docs/dev/protocol-2026.md#tasks-on-2026-07-28), for tests. The SDK v2's server packages
 * (`@modelcontextprotocol/server` 2.4) have no tasks runtime, so the extension's wire format is spoken here through
 * the low-level `Server`'s custom request handlers: `tools/call` of `report` answers a task handle
 * (`resultType: "task"`), and `tasks/get`, `tasks/update` and `tasks/cancel` follow it. Run as a child process (`node
 * modern-tasks-server.ts`; Node strips the types), or imported for HTTP (`newTasksServer`). Run as a process, each
 * request's method goes to stderr as `modern-tasks-fixture: received METHOD`.
 *
 * - `report` ({ steps, stepMs }) runs as a task only: to a request that declares the extension in its
 *   `clientCapabilities` it answers a task that moves one step every `stepMs` (its status message says which) and
 *   completes with "report ready after N steps"; to any other request it answers `-32021` (Missing Required Client
 *   Capability), as the extension's specification requires.
 * - `ask` ({ question }) runs as a task the same way; its task asks the person (`input_required`, an elicitation in
 *   `inputRequests`) and completes with the answer once `tasks/update` brings it.
 * - `confirmed_report` ({ steps }) runs as a task the same way, but first asks the person (an `input_required` result
 *   to `tools/call`, answered by sending the call again) and creates the task only once accepted.
 * - `echo` ({ text }) answers at once, whatever the client declared, after one step of progress to a request that
 *   carries a progress token.
 *
 * Each `tools/call` also writes whether its request declared the extension.
 */
import {
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  Server,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

const TASKS = 'io.modelcontextprotocol/tasks';

interface TaskState {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';
  inputRequests?: Record<string, unknown>;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  timer?: ReturnType<typeof setInterval>;
}

/** One store for the process: the stdio server builds a `Server` per connection, the tasks outlive none of them. */
const tasks = new Map<string, TaskState>();
let nextTask = 1;

const wire = (task: TaskState): Record<string, unknown> => ({
  taskId: task.taskId,
  status: task.status,
  statusMessage: task.statusMessage,
  createdAt: task.createdAt,
  lastUpdatedAt: task.lastUpdatedAt,
  ttlMs: 600_000,
  pollIntervalMs: 50,
  ...(task.result ? { result: task.result } : {}),
  ...(task.status === 'input_required' && task.inputRequests ? { inputRequests: task.inputRequests } : {}),
});

function startReport(steps: number, stepMs: number): TaskState {
  const now = new Date().toISOString();
  const task: TaskState = {
    taskId: `report-${nextTask++}`,
    status: 'working',
    statusMessage: `Step 0 of ${steps}`,
    createdAt: now,
    lastUpdatedAt: now,
  };
  let done = 0;
  task.timer = setInterval(() => {
    if (task.status !== 'working') return;
    done += 1;
    task.lastUpdatedAt = new Date().toISOString();
    if (done < steps) {
      task.statusMessage = `Step ${done} of ${steps}`;
      return;
    }
    clearInterval(task.timer);
    task.status = 'completed';
    task.statusMessage = 'Done';
    task.result = { content: [{ type: 'text', text: `report ready after ${steps} steps` }] };
  }, stepMs);
  tasks.set(task.taskId, task);
  return task;
}

function startAsk(question: string): TaskState {
  const now = new Date().toISOString();
  const task: TaskState = {
    taskId: `ask-${nextTask++}`,
    // Asks from the first look on (a task handle carrying inputRequests is not a tools/call result to the SDK).
    status: 'working',
    statusMessage: `Asked: ${question}`,
    createdAt: now,
    lastUpdatedAt: now,
    inputRequests: {
      confirm: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: question,
          requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
        },
      },
    },
  };
  tasks.set(task.taskId, task);
  return task;
}

function taskOf(taskId: string): TaskState {
  const task = tasks.get(taskId);
  if (!task) throw new ProtocolError(-32602, `Failed to retrieve task: no task ${taskId}`);
  return task;
}

/**
 * The server, for a transport of the caller's (over HTTP: `createMcpHandler(() => newTasksServer(log))`); `log` takes
 * the line each `tools/call` writes. `unasked`: a server that does not offer the extension and breaks its rule,
 * answering `report` with a task to a request that did not declare it. `received` is told the method of each `tasks/*`
 * request. While `plain.report` is true, `report` answers its result at once, declared or not (a server that chose
 * not to make it a task); while `plain.undeclared` is true, it answers at once a request that did not declare the
 * extension and makes a task for one that did (a server that runs it as a task only when the client can follow one).
 * `slow`: `echo` answers after 2 s.
 */
export function newTasksServer(
  log = (line: string): void => void process.stderr.write(`${line}\n`),
  {
    unasked = false,
    received,
    plain,
    slow = false,
  }: {
    unasked?: boolean;
    slow?: boolean;
    received?: (method: string) => void;
    plain?: { report: boolean; undeclared?: boolean };
  } = {},
): Server {
  const server = new Server(
    { name: 'modern-tasks-fixture', version: '2.0.0' },
    { capabilities: { tools: {}, ...(unasked ? {} : { extensions: { [TASKS]: {} } }) } },
  );
  const properties = (names: Record<string, string>): Record<string, { type: string }> =>
    Object.fromEntries(Object.entries(names).map(([name, type]) => [name, { type }]));
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'report',
        description: 'Builds a report step by step; runs as a task (the tasks extension).',
        inputSchema: {
          type: 'object',
          properties: properties({ steps: 'number', stepMs: 'number' }),
          required: ['steps'],
        },
      },
      {
        name: 'ask',
        description: 'Asks the person a question; runs as a task (the tasks extension).',
        inputSchema: { type: 'object', properties: properties({ question: 'string' }), required: ['question'] },
      },
      {
        name: 'confirmed_report',
        description: 'Asks first, then builds the report as a task (the tasks extension).',
        inputSchema: { type: 'object', properties: properties({ steps: 'number' }), required: ['steps'] },
      },
      {
        name: 'echo',
        description: 'Says the text back.',
        inputSchema: { type: 'object', properties: properties({ text: 'string' }), required: ['text'] },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    // The envelope is typed `{}` in the SDK; at run time it is keyed by the `_meta` keys it was lifted from.
    const envelope = ctx.mcpReq.envelope as
      { 'io.modelcontextprotocol/clientCapabilities'?: { extensions?: Record<string, unknown> } } | undefined;
    const declared = envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS];
    log(
      `modern-tasks-fixture: tools/call ${request.params.name}, tasks extension ${declared ? 'declared' : 'not declared'}`,
    );
    if (request.params.name === 'echo') {
      // One step of progress, to a call that asked for it with a progress token.
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 1, message: 'Echoing' },
        });
      if (slow) await new Promise((resolve) => setTimeout(resolve, 2_000).unref());
      return { content: [{ type: 'text', text: String(args['text']) }] };
    }
    if (request.params.name === 'report' && (plain?.report || (plain?.undeclared && !declared)))
      return { content: [{ type: 'text', text: 'report ready at once' }] };
    if (!['report', 'ask', 'confirmed_report'].includes(request.params.name))
      throw new ProtocolError(-32602, `unknown tool ${request.params.name}`);
    if (!declared && !unasked)
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS]: {} } } },
        `"${request.params.name}" runs only as a task: declare the ${TASKS} extension.`,
      );
    if (request.params.name === 'confirmed_report') {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'go');
      if (answer.kind !== 'elicit')
        return inputRequired({
          inputRequests: {
            go: inputRequired.elicit({
              message: 'Build the confirmed report?',
              requestedSchema: { type: 'object', properties: {} } as never,
            }),
          },
        });
      if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'not built' }] };
    }
    const task =
      request.params.name === 'ask'
        ? startAsk(String(args['question']))
        : startReport(Number(args['steps'] ?? 3), Number(args['stepMs'] ?? 100));
    return { resultType: 'task', ...wire(task) } as never;
  });
  const byId = { params: z.object({ taskId: z.string() }) };
  server.setRequestHandler('tasks/get', byId, async ({ taskId }) => {
    received?.('tasks/get');
    const task = taskOf(taskId);
    if (task.inputRequests && task.status === 'working' && !task.result) task.status = 'input_required';
    return wire(task);
  });
  // The SDK lifts `inputResponses` out of every request's params (ctx.mcpReq.inputResponses).
  server.setRequestHandler('tasks/update', byId, async ({ taskId }, ctx) => {
    received?.('tasks/update');
    const task = taskOf(taskId);
    const answer = (
      ctx.mcpReq.inputResponses as Record<string, { action?: string; content?: { answer?: string } }> | undefined
    )?.['confirm'];
    if (task.status === 'input_required' && answer) {
      task.status = 'completed';
      task.statusMessage = 'Answered';
      task.lastUpdatedAt = new Date().toISOString();
      task.result = {
        content: [{ type: 'text', text: `the person said ${answer.action}: ${answer.content?.answer ?? '(nothing)'}` }],
      };
    }
    return {};
  });
  server.setRequestHandler('tasks/cancel', byId, async ({ taskId }) => {
    received?.('tasks/cancel');
    const task = taskOf(taskId);
    if (task.status === 'working' || task.status === 'input_required') {
      clearInterval(task.timer);
      task.status = 'cancelled';
      task.statusMessage = 'Cancelled at the client’s request';
      task.lastUpdatedAt = new Date().toISOString();
    }
    return {};
  });
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Each request's method to stderr, so a test sees what the client sent (the SDK's transport reads stdin too);
  // nothing with MODERN_STDIO_QUIET=1 (the benchmark measures calls, not this log).
  const quiet = process.env['MODERN_STDIO_QUIET'] === '1';
  let unread = '';
  if (!quiet)
    process.stdin.on('data', (chunk: Buffer) => {
      const lines = (unread + chunk.toString('utf8')).split('\n');
      unread = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const { method, id } = JSON.parse(line) as { method?: string; id?: unknown };
          if (method && id !== undefined) process.stderr.write(`modern-tasks-fixture: received ${method}\n`);
        } catch {
          // Not JSON: the SDK's transport reports it.
        }
      }
    });
  serveStdio(() => newTasksServer(quiet ? () => undefined : undefined));
}
