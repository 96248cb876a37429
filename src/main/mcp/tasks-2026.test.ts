/**
 * Tasks on 2026-07-28 (docs/dev/protocol-2026.md#tasks-on-2026-07-28): what the SDK v2 client offers for the tasks
 * extension, measured against a 2026-07-28 server that speaks it (test-fixtures/modern-tasks-server.ts, a child
 * process), and how the host runs such a server's tasks itself, through its raw request path (raw-requests.ts,
 * modern-tasks.ts). The first block pins the SDK's refusal of a task handle: it fails on the release that accepts one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestHost, disposeTestHosts, type TestHost } from './test-fixtures/harness';
import { newTasksServer } from './test-fixtures/modern-tasks-server';
import { needsTasksExtension, TASKS_EXTENSION } from './tool-tasks';
import type { ToolProgress, ToolTaskState } from '../../shared/messages';
import { CallRefused, type CallDoor, type DoorCall } from './call-door';
import type { ServerRequestHandler, ServerRequestOrigin } from './server-request-routing';

afterEach(disposeTestHosts);

const TASKS_SERVER = fileURLToPath(new URL('./test-fixtures/modern-tasks-server.ts', import.meta.url));

const TaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional() });

async function sdkClient(): Promise<Client> {
  const client = new Client(
    { name: 'tasks-2026-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [TASKS_SERVER], stderr: 'ignore' }));
  return client;
}

function logText(test: TestHost, name: string): string {
  return test.host
    .logs(name)
    .lines.map((line) => line.text)
    .join('\n');
}

describe('the SDK v2 client (2.4) and the tasks extension', () => {
  it('declares the extension and reaches the server, but refuses the task handle its tools/call gets back', async () => {
    const client = await sdkClient();
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.extensions).toEqual({ [TASKS_EXTENSION]: {} });
      // The server answered `resultType: "task"`; the client's 2026-07-28 codec rejects it before any caller sees
      // the handle, through callTool() and through the generic request() with a schema of the caller's alike.
      const viaCallTool = await client.callTool({ name: 'report', arguments: { steps: 50 } }).catch((e: unknown) => e);
      expect(viaCallTool).toBeInstanceOf(SdkError);
      expect((viaCallTool as SdkError).code).toBe(SdkErrorCode.UnsupportedResultType);
      expect((viaCallTool as SdkError).data).toEqual({ resultType: 'task', method: 'tools/call' });
      const viaRequest = await client
        .request({ method: 'tools/call', params: { name: 'report', arguments: { steps: 50 } } }, z.looseObject({}))
        .catch((e: unknown) => e);
      expect((viaRequest as SdkError).code).toBe(SdkErrorCode.UnsupportedResultType);
      // Nothing of the task reaches the caller: its id is not in the error.
      expect(JSON.stringify(viaRequest)).not.toContain('report-');
    } finally {
      await client.close();
    }
  });

  it('sends tasks/get and tasks/cancel through the generic request() with a schema (the task ids come from elsewhere)', async () => {
    const client = await sdkClient();
    try {
      // The refused call still created a task on the server (a fresh process each client): its id is known here only
      // because the fixture numbers its tasks.
      await client.callTool({ name: 'report', arguments: { steps: 50, stepMs: 100 } }).catch(() => undefined);
      const task = await client.request({ method: 'tasks/get', params: { taskId: 'report-1' } }, TaskSchema);
      expect(task).toMatchObject({ taskId: 'report-1', status: 'working' });
      await client.request({ method: 'tasks/cancel', params: { taskId: 'report-1' } }, z.looseObject({}));
      const cancelled = await client.request({ method: 'tasks/get', params: { taskId: 'report-1' } }, TaskSchema);
      expect(cancelled.status).toBe('cancelled');
      // Without a schema the SDK refuses tasks/get toward a 2026-07-28 server (a 2025-11-25 method there).
      const bare = await Promise.resolve()
        .then(() => client.request({ method: 'tasks/get', params: { taskId: 'report-1' } } as never))
        .catch((e: unknown) => e);
      expect((bare as SdkError).code).toBe(SdkErrorCode.MethodNotSupportedByProtocolVersion);
    } finally {
      await client.close();
    }
  });
});

describe('the host and a 2026-07-28 server whose tool runs only as a task', () => {
  it('declares the extension on the first call and follows the task to its result', async () => {
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } });
    const server = await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    expect(server.status.protocolVersion).toBe('2026-07-28');

    const states: ToolTaskState[] = [];
    const progress: string[] = [];
    const result = await test.host.callTool({
      serverName: 'tasks',
      toolName: 'report',
      args: { steps: 3, stepMs: 30 },
      toolCallId: 'call-1',
      onTask: (state) => states.push(state),
      onProgress: (p) => progress.push(p.message ?? ''),
    });
    expect(result.isError).toBeFalsy();
    expect(result.forModel.text).toBe('report ready after 3 steps');
    expect(states[0]).toMatchObject({ taskId: 'report-1', status: 'working' });
    expect(states.at(-1)).toMatchObject({ taskId: 'report-1', status: 'completed' });
    expect(progress).toContain('Step 0 of 3');
    // The server's other tools answer at once to a call that declares the extension: a plain result.
    const echo = await test.host.callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'still here' } });
    expect(echo.forModel.text).toBe('still here');

    // The one request declared the extension, on the raw path; the task was followed with tasks/get. (The server's
    // stderr reaches the log after its answers: wait for the line of the last call, everything before it is there.)
    await expect.poll(() => logText(test, 'tasks')).toContain('tools/call echo, tasks extension declared');
    const log = logText(test, 'tasks');
    expect(log.match(/tools\/call report/g)).toHaveLength(1);
    expect(log).toContain('tools/call report, tasks extension declared');
    expect(log).not.toContain('not declared');
    expect(log).toContain('received tasks/get');
    expect(log).not.toContain('received tasks/cancel');
  });

  it('Cancel sends tasks/cancel and the call ends cancelled', async () => {
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } });
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const call = test.host.callTool({
      serverName: 'tasks',
      toolName: 'report',
      args: { steps: 500, stepMs: 100 },
      toolCallId: 'call-cancel',
      onTask: (state) => {
        if (state.status === 'working') test.host.cancelTask('call-cancel');
      },
    });
    await expect(call).rejects.toThrow('was cancelled at your request');
    await expect.poll(() => logText(test, 'tasks')).toContain('received tasks/cancel');
  });
});

describe('each leg of a 2026-07-28 task at the door', () => {
  it('a deny rule in force while the task runs stops its next tasks/get: the call ends refused, the task is cancelled', async () => {
    const legs: string[] = [];
    let denied = false;
    const door: CallDoor = (call: DoorCall) => {
      legs.push(call.toolName);
      if (denied) throw new CallRefused('Denied by the rule "no reports" (test)');
    };
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } }, { door });
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const states: ToolTaskState[] = [];
    const call = test.host.callTool({
      serverName: 'tasks',
      toolName: 'report',
      args: { steps: 500, stepMs: 100 },
      toolCallId: 'call-deny',
      onTask: (state) => {
        states.push(state);
        denied = true;
      },
    });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallRefused);
    expect((error as CallRefused).reason).toBe('Denied by the rule "no reports" (test)');
    // The call declaring the extension, then the first tasks/get: refused, never sent.
    expect(legs).toEqual(['report', 'report']);
    // Cancel goes out past the rule; the task stops on the server and nothing more is asked of it.
    await expect.poll(() => logText(test, 'tasks')).toContain('received tasks/cancel');
    expect(logText(test, 'tasks')).not.toContain('received tasks/get');
    expect(states.map((state) => state.status)).toEqual(['working', 'cancelled']);
    expect(states.at(-1)?.statusMessage).toBe('Stopped: a deny rule in force refused it');
  });

  it('an answer without a task passes the door once more: a rule in force by then keeps it from the model', async () => {
    const legs: string[] = [];
    let refusedFrom = Infinity;
    const door: CallDoor = (call: DoorCall) => {
      legs.push(call.toolName);
      if (legs.length >= refusedFrom) throw new CallRefused('Denied by the rule "no echo" (test)');
    };
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } }, { door });
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const allowed = await test.host.callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'one' } });
    expect(allowed.forModel.text).toBe('one');
    // The call declaring the extension, then its answer before it is handed on.
    expect(legs).toEqual(['echo', 'echo']);
    await expect.poll(() => logText(test, 'tasks')).toContain('tools/call echo, tasks extension declared');

    // The rule comes into force while the server works on the next call: it ran there, but its answer is withheld.
    refusedFrom = 4;
    const error = await test.host
      .callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'two' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallRefused);
    expect(legs).toEqual(['echo', 'echo', 'echo', 'echo']);
    await expect.poll(() => logText(test, 'tasks').match(/tools\/call echo/g)?.length).toBe(2);
  });

  it("the server's progress on a call it answers without a task shows on the call", async () => {
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } });
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const progress: ToolProgress[] = [];
    const result = await test.host.callTool({
      serverName: 'tasks',
      toolName: 'echo',
      args: { text: 'with progress' },
      onProgress: (step) => progress.push(step),
    });
    expect(result.forModel.text).toBe('with progress');
    expect(progress).toEqual([{ progress: 1, total: 1, message: 'Echoing' }]);
  });

  it("what the task asks while input_required goes to the approval engine, in the call's chat, answered with tasks/update", async () => {
    const asked: { origin: ServerRequestOrigin; message: string }[] = [];
    const serverRequests: ServerRequestHandler = {
      sample: () => Promise.reject(new Error('not asked for here')),
      elicit: (origin, params) => {
        asked.push({ origin, message: params.message });
        return Promise.resolve({ action: 'accept', content: { answer: 'yes, go on' } });
      },
    };
    const admitted: string[] = [];
    const test = createTestHost(
      { tasks: { command: process.execPath, args: [TASKS_SERVER] } },
      { serverRequests, door: (call) => void admitted.push(call.toolName) },
    );
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const states: ToolTaskState[] = [];
    const result = await test.host.callTool({
      serverName: 'tasks',
      toolName: 'ask',
      args: { question: 'Publish the report?' },
      toolCallId: 'call-ask',
      chatId: 'chat-ask',
      onTask: (state) => states.push(state),
    });
    expect(asked).toEqual([
      { origin: expect.objectContaining({ chatId: 'chat-ask', serverName: 'tasks' }), message: 'Publish the report?' },
    ]);
    expect(result.forModel.text).toBe('the person said accept: yes, go on');
    expect(states.map((state) => state.status)).toEqual(['working', 'input_required', 'completed']);
    await expect.poll(() => logText(test, 'tasks')).toContain('received tasks/update');
    // Every leg passed the door: both calls, the update, each get, and the result before it was handed on.
    expect(admitted.length).toBeGreaterThanOrEqual(4);
    expect(new Set(admitted)).toEqual(new Set(['ask']));
  });

  it('a call that asks before its task exists is sent again with the answer, through the door; a rule that came meanwhile keeps it out', async () => {
    let denied = false;
    const admitted: string[] = [];
    const door: CallDoor = (call) => {
      admitted.push(call.toolName);
      if (denied) throw new CallRefused('Denied by the rule "no confirmed reports" (test)');
    };
    const answers: ServerRequestHandler = {
      sample: () => Promise.reject(new Error('not asked for here')),
      elicit: (_origin, params) => {
        expect(params.message).toBe('Build the confirmed report?');
        return Promise.resolve({ action: 'accept', content: {} });
      },
    };
    const test = createTestHost(
      { tasks: { command: process.execPath, args: [TASKS_SERVER] } },
      { door, serverRequests: answers },
    );
    await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    const states: ToolTaskState[] = [];
    const result = await test.host.callTool({
      serverName: 'tasks',
      toolName: 'confirmed_report',
      args: { steps: 2, stepMs: 20 },
      toolCallId: 'confirmed-1',
      onTask: (state) => states.push(state),
    });
    expect(result.forModel.text).toBe('report ready after 2 steps');
    expect(states.at(-1)?.status).toBe('completed');
    // The call declaring the extension, the same call with the answer: two arrivals, each past the door.
    await expect.poll(() => logText(test, 'tasks')).toContain('received tasks/get');
    expect(logText(test, 'tasks').match(/tools\/call confirmed_report/g)).toHaveLength(2);
    expect(logText(test, 'tasks')).not.toContain('not declared');

    // Now a deny rule comes while the person is asked: the call with the answer is not sent, no task is made.
    answers.elicit = () => {
      denied = true;
      return Promise.resolve({ action: 'accept', content: {} });
    };
    const before = logText(test, 'tasks').match(/tools\/call confirmed_report/g)?.length ?? 0;
    const refused = await test.host
      .callTool({ serverName: 'tasks', toolName: 'confirmed_report', args: { steps: 2 }, toolCallId: 'confirmed-2' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CallRefused);
    denied = false;
    const echo = await test.host.callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'last' } });
    expect(echo.isError).toBeFalsy();
    await expect.poll(() => logText(test, 'tasks')).toContain('tools/call echo');
    // One more arrival (the call that asked), not the second.
    expect(logText(test, 'tasks').match(/tools\/call confirmed_report/g)).toHaveLength(before + 1);
    expect(logText(test, 'tasks').match(/tools\/call confirmed_report, tasks extension declared/g)).toHaveLength(3);
  });

  it('a server that goes away while its task runs ends the call saying so', async () => {
    const test = createTestHost({ tasks: { command: process.execPath, args: [TASKS_SERVER] } });
    const ready = await test.waitFor('tasks', (s) => s.status.toolCount === 4);
    let killed = false;
    const call = test.host.callTool({
      serverName: 'tasks',
      toolName: 'report',
      args: { steps: 500, stepMs: 100 },
      toolCallId: 'call-gone',
      // Killed at the task's first state, once: a later state (one read before the kill landed) finds it gone.
      onTask: () => {
        if (killed || !ready.status.pid) return;
        killed = true;
        process.kill(ready.status.pid, 'SIGKILL');
      },
    });
    await expect(call).rejects.toThrow('"tasks" went away while the task of "report" ran');
  });
});

async function serveHttp(
  options: Parameters<typeof newTasksServer>[1] = {},
): Promise<{ url: string; calls: string[]; statuses: number[]; close(): Promise<void> }> {
  const calls: string[] = [];
  const statuses: number[] = [];
  const handler = toNodeHandler(createMcpHandler(() => newTasksServer((line) => calls.push(line), options)));
  const server = http.createServer((request, response) => {
    response.on('finish', () => statuses.push(response.statusCode));
    void handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    statuses,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the same server over HTTP', () => {
  it('runs the task over HTTP: one tools/call declaring the extension, its task followed', async () => {
    const served = await serveHttp();
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      const ready = await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      expect(ready.status.protocolVersion).toBe('2026-07-28');
      const states: ToolTaskState[] = [];
      const result = await test.host.callTool({
        serverName: 'tasks',
        toolName: 'report',
        args: { steps: 2, stepMs: 30 },
        toolCallId: 'http-1',
        onTask: (state) => states.push(state),
      });
      expect(result.forModel.text).toBe('report ready after 2 steps');
      expect(states[0]?.status).toBe('working');
      expect(states.at(-1)?.status).toBe('completed');
      expect(served.calls).toEqual(['modern-tasks-fixture: tools/call report, tasks extension declared']);
      expect(served.statuses.filter((status) => status >= 300)).toEqual([]);
      expect(test.host.server('tasks').status.state).toBe('ready');
      expect(logText(test, 'tasks')).not.toMatch(/reconnect|crash/i);
      const echo = await test.host.callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'over http' } });
      expect(echo.forModel.text).toBe('over http');
    } finally {
      await served.close();
    }
  });

  it('follows a task it created before (a restart): tasks/get until it ends; a task the server no longer knows is lost', async () => {
    const served = await serveHttp();
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      let taskId: string | undefined;
      const first = test.host.callTool({
        serverName: 'tasks',
        toolName: 'report',
        args: { steps: 6, stepMs: 40 },
        toolCallId: 'made',
        onTask: (state) => (taskId ??= state.taskId),
      });
      await expect.poll(() => taskId).toBeDefined();
      const states: ToolTaskState[] = [];
      const followed = await test.host.followTask({
        serverName: 'tasks',
        toolName: 'report',
        taskId: taskId as string,
        toolCallId: 'followed',
        args: { steps: 6, stepMs: 40 },
        chatId: 'chat-f',
        onTask: (state) => states.push(state),
      });
      expect(followed.forModel.text).toBe('report ready after 6 steps');
      expect(states.at(-1)?.status).toBe('completed');
      await first;
      // No tools/call was sent for it: the server saw the first call's, nothing more.
      expect(served.calls).toHaveLength(1);
      const lost = test.host.followTask({
        serverName: 'tasks',
        toolName: 'report',
        taskId: 'report-999',
        toolCallId: 'lost',
        args: {},
        chatId: 'chat-f',
        onTask: () => undefined,
      });
      await expect(lost).rejects.toThrow('The task of "report" was lost: "tasks" no longer knows it');
    } finally {
      await served.close();
    }
  });

  it('a server that makes a call a task only when the client declares the extension gets a task on the first call', async () => {
    const plain = { report: false, undeclared: true };
    const served = await serveHttp({ plain });
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      const call = async (toolCallId: string): Promise<{ text: string; states: ToolTaskState[] }> => {
        const states: ToolTaskState[] = [];
        const result = await test.host.callTool({
          serverName: 'tasks',
          toolName: 'report',
          args: { steps: 1, stepMs: 10 },
          toolCallId,
          onTask: (state) => states.push(state),
        });
        return { text: result.forModel.text, states };
      };
      const DECLARED = 'modern-tasks-fixture: tools/call report, tasks extension declared';
      // One tools/call, declaring the extension: the server made it a task, followed to its end.
      const first = await call('first');
      expect(first.text).toBe('report ready after 1 steps');
      expect(first.states[0]?.status).toBe('working');
      expect(first.states.at(-1)?.status).toBe('completed');
      expect(served.calls).toEqual([DECLARED]);

      // The server now chooses to answer at once: the plain result is the call's, no task states; the next call
      // declares the extension again (the server decides each time).
      plain.report = true;
      expect(await call('second')).toEqual({ text: 'report ready at once', states: [] });
      plain.report = false;
      expect((await call('third')).states.at(-1)?.status).toBe('completed');
      expect(served.calls).toEqual([DECLARED, DECLARED, DECLARED]);
      // After a restart, the same: no refused round trip to learn again.
      await test.host.restart('tasks');
      await test.waitFor('tasks', (s) => s.status.state === 'ready' && s.status.toolCount === 4);
      await call('fourth');
      expect(served.calls.slice(3)).toEqual([DECLARED]);
    } finally {
      await served.close();
    }
  });

  it("a plain answer on the raw path keeps the call's own timeout and stop until a task exists", async () => {
    const served = await serveHttp({ slow: true });
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      const timedOut = test.host.callTool({
        serverName: 'tasks',
        toolName: 'echo',
        args: { text: 'slow' },
        toolCallId: 'slow-1',
        timeoutMs: 200,
      });
      await expect(timedOut).rejects.toThrow('"echo" on "tasks" did not finish within 0.2 s; the call was cancelled.');
      const stop = new AbortController();
      const stopped = test.host.callTool({
        serverName: 'tasks',
        toolName: 'echo',
        args: { text: 'slow' },
        toolCallId: 'slow-2',
        signal: stop.signal,
      });
      setTimeout(() => stop.abort(), 50);
      await expect(stopped).rejects.toThrow(
        'The call to "echo" on "tasks" was cancelled; the server was told to stop it.',
      );
    } finally {
      await served.close();
    }
  });

  it('a follower that no longer holds the task sends nothing more about it, not even tasks/cancel', async () => {
    const received: string[] = [];
    const served = await serveHttp({ received: (method) => received.push(method) });
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      let taskId: string | undefined;
      const made = test.host.callTool({
        serverName: 'tasks',
        toolName: 'report',
        args: { steps: 30, stepMs: 50 },
        toolCallId: 'made-elsewhere',
        onTask: (state) => (taskId ??= state.taskId),
      });
      await expect.poll(() => taskId).toBeDefined();
      let holds = 3;
      const followed = test.host.followTask({
        serverName: 'tasks',
        toolName: 'report',
        taskId: taskId as string,
        toolCallId: 'taken',
        chatId: 'chat-t',
        args: { steps: 30, stepMs: 50 },
        onTask: () => undefined,
        stillFollowed: () => holds-- > 0,
      });
      await expect(followed).rejects.toThrow('Another process follows the task of "report" on "tasks" now');
      // The task goes on for its follower, to its end.
      expect((await made).forModel.text).toBe('report ready after 30 steps');
      expect(received).not.toContain('tasks/cancel');
    } finally {
      await served.close();
    }
  });

  it('a server that did not offer the extension and hands out a task: the call fails saying so, the session is kept', async () => {
    const served = await serveHttp({ unasked: true });
    try {
      const test = createTestHost({ tasks: { url: served.url, type: 'http' } });
      await test.waitFor('tasks', (s) => s.status.toolCount === 4);
      const call = test.host.callTool({ serverName: 'tasks', toolName: 'report', args: { steps: 2 } });
      await expect(call).rejects.toThrow(
        '"tasks" answered the call to "report" with a task, although AI Workbench did not offer the MCP tasks extension',
      );
      expect(served.calls).toEqual(['modern-tasks-fixture: tools/call report, tasks extension not declared']);
      expect(test.host.server('tasks').status.state).toBe('ready');
      expect(logText(test, 'tasks')).not.toMatch(/reconnect|crash/i);
      const echo = await test.host.callTool({ serverName: 'tasks', toolName: 'echo', args: { text: 'still here' } });
      expect(echo.forModel.text).toBe('still here');
    } finally {
      await served.close();
    }
  });
});

describe('needsTasksExtension', () => {
  it('is a -32021 that names the tasks extension, nothing else', () => {
    const required = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
    expect(needsTasksExtension(-32021, required)).toBe(true);
    expect(needsTasksExtension(-32021, { requiredCapabilities: { extensions: { 'x/other': {} } } })).toBe(false);
    expect(needsTasksExtension(-32021, { requiredCapabilities: { sampling: {} } })).toBe(false);
    expect(needsTasksExtension(-32021, undefined)).toBe(false);
    expect(needsTasksExtension(-32602, required)).toBe(false);
    // An inherited name is not a declared one.
    expect(
      needsTasksExtension(-32021, { requiredCapabilities: { extensions: Object.create({ [TASKS_EXTENSION]: {} }) } }),
    ).toBe(false);
  });
});
