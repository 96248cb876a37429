/**
 * Tool calls made as MCP tasks (docs/user/mcp-servers.md#tasks), against the real server-everything (a 2025-11-25
 * server) spawned as a child process: its `simulate-research-query` declares `execution.taskSupport: "required"`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProgress, ToolTaskState } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import { CallRefused, type CallDoor, type DoorCall } from './call-door';
import type { ServerRequestHandler, ServerRequestOrigin } from './server-request-routing';
import { createTestHost, disposeTestHosts, eventually, type TestHost } from './test-fixtures/harness';

afterEach(disposeTestHosts);

async function everything(extra: Parameters<typeof createTestHost>[1] = {}): Promise<TestHost> {
  const test = createTestHost({ everything: { package: '@modelcontextprotocol/server-everything' } }, extra);
  await test.waitFor('everything', (view) => view.status.state === 'ready' && view.status.toolCount > 0);
  return test;
}

const RESEARCH = 'simulate-research-query';

describe('a tool that must run as a task', () => {
  it('is listed with its task support', async () => {
    const test = await everything();
    const tool = test.host.tools('everything').find((candidate) => candidate.name === RESEARCH);
    expect(tool?.taskSupport).toBe('required');
    expect(test.host.tools('everything').find((candidate) => candidate.name === 'echo')?.taskSupport).toBeUndefined();
  });

  it('passes the door before each leg, reports its status messages as progress, and delivers the result when it completes', async () => {
    const admitted: DoorCall[] = [];
    const test = await everything({ door: (call) => void admitted.push(call) });
    const states: ToolTaskState[] = [];
    const progress: ToolProgress[] = [];
    const result = await test.host.callTool({
      serverName: 'everything',
      toolName: RESEARCH,
      args: { topic: 'tides' },
      toolCallId: 'call-1',
      onTask: (state) => states.push(state),
      onProgress: (update) => progress.push(update),
    });
    // The door before tools/call, then before each further leg (tasks/get, tasks/result) and the result: the same call.
    expect(admitted.length).toBeGreaterThan(2);
    expect(new Set(admitted.map((call) => `${call.toolName} ${JSON.stringify(call.args)} ${call.toolCallId}`))).toEqual(
      new Set([`${RESEARCH} {"topic":"tides"} call-1`]),
    );
    expect(result.isError).toBe(false);
    expect(result.forModel.text).toContain('# Research Report: tides');
    const taskIds = new Set(states.map((state) => state.taskId));
    expect(taskIds.size).toBe(1);
    expect(states.at(-1)?.status).toBe('completed');
    expect(states.some((state) => state.status === 'working')).toBe(true);
    // The stages' status messages arrive as progress, in order (polling may see a stage twice or skip a short one).
    const messages = progress.map((update) => update.message);
    expect(messages).toContain('Gathering sources...');
    expect(messages.at(-1)).toBe('Generating report...');
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
  });

  it('is not created when the door refuses it', async () => {
    const refusing: CallDoor = () => {
      throw new CallRefused('rule "no research": deny');
    };
    const states: ToolTaskState[] = [];
    const test = await everything({ door: refusing });
    await expect(
      test.host.callTool({
        serverName: 'everything',
        toolName: RESEARCH,
        args: { topic: 'tides' },
        toolCallId: 'call-2',
        onTask: (state) => states.push(state),
      }),
    ).rejects.toBeInstanceOf(CallRefused);
    expect(states).toEqual([]);
    expect(test.host.cancelTask('call-2')).toBe(false);
  });

  it('stops when cancelled mid-way: tasks/cancel, and the server says the task is cancelled', async () => {
    const test = await everything();
    const states: ToolTaskState[] = [];
    const call = test.host.callTool({
      serverName: 'everything',
      toolName: RESEARCH,
      args: { topic: 'tides' },
      toolCallId: 'call-3',
      onTask: (state) => states.push(state),
    });
    await eventually(() => states.some((state) => state.status === 'working'), 'the task to be working');
    expect(test.host.cancelTask('call-3')).toBe(true);
    const error = (await call.then(
      () => undefined,
      (reason: unknown) => reason,
    )) as WorkbenchError;
    expect(error).toBeInstanceOf(WorkbenchError);
    expect(error.code).toBe('cancelled');
    expect(states.at(-1)?.status).toBe('cancelled');
    // Once ended, the call id names no running task.
    expect(test.host.cancelTask('call-3')).toBe(false);
  });

  it("asks the person through the server-request handler when the task needs input, in the call's chat", async () => {
    const asked: { origin: ServerRequestOrigin; message: string }[] = [];
    const serverRequests: ServerRequestHandler = {
      sample: () => Promise.reject(new Error('not asked for here')),
      elicit: (origin, params) => {
        asked.push({ origin, message: params.message });
        return Promise.resolve({ action: 'accept', content: { interpretation: 'historical' } });
      },
    };
    const test = await everything({ serverRequests });
    const states: ToolTaskState[] = [];
    const result = await test.host.callTool({
      serverName: 'everything',
      toolName: RESEARCH,
      args: { topic: 'tides', ambiguous: true },
      toolCallId: 'call-4',
      chatId: 'chat-4',
      onTask: (state) => states.push(state),
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.origin.chatId).toBe('chat-4');
    expect(asked[0]?.message).toContain('could have multiple interpretations');
    expect(states.some((state) => state.status === 'input_required')).toBe(true);
    expect(result.isError).toBe(false);
    expect(result.forModel.text).toContain('# Research Report: tides (historical)');
  });
});
