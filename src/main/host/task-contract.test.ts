// Tool calls made as MCP tasks, end to end through the contract (docs/user/mcp-servers.md#tasks): server-everything's
// `simulate-research-query` (execution.taskSupport "required") as a real child process, a fake model, the real
// approval engine, door and audit log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { ChatMessage, ChatStreamEvent, ToolCallRecord } from '../../shared/messages';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const SERVER = 'Everything';
const TOOL = 'simulate-research-query';

let llm: FakeLlmServer;
let chatTurns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({ respond: () => chatTurns.shift() ?? { kind: 'reply', text: ['Done.'] } });
});
afterAll(() => llm.close());

let dir: string;
let services: Services;
let dispatch: ReturnType<typeof createDispatcher>;
let streamed: ChatStreamEvent[];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-tasks-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  dispatch = createDispatcher(createHandlers(services), (error) => {
    throw error;
  });
  streamed = [];
  services.events.subscribe((event, payload) => {
    if (event === 'chat.onDidStream') streamed.push(payload as ChatStreamEvent);
  });
  chatTurns = [];
  services.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  services.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  services.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything' });
  services.mcp.start();
  await until(() => services.mcp.tools(SERVER).some((tool) => tool.name === TOOL), 'server-everything lists its tools');
}, 60_000);
afterEach(async () => {
  await services.conversations.dispose();
  await services.mcp.stop();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function ok<T>(method: string, input: unknown): Promise<T> {
  const answer = await dispatch(method, input);
  if (!answer.ok) throw new Error(`${method} failed: ${answer.error.message}`);
  return answer.value as T;
}

/** The model asks for the research tool; the exchange starts. */
async function askForResearch(args: Record<string, unknown>): Promise<string> {
  const chatId = services.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
  const providerName = services.mcp.tools(SERVER).find((tool) => tool.name === TOOL)?.providerName as string;
  chatTurns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify(args)] }] });
  await ok('chat.send', { chatId, message: { role: 'user', text: 'research' } });
  return chatId;
}

function calls(chatId: string): ToolCallRecord[] {
  return (services.conversations.messages(chatId).messages as ChatMessage[]).flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
}

function auditOf(chatId: string): AuditEntry[] {
  return services.audit.query({ chatId, limit: 100 }).entries.slice().reverse();
}
const rows = (entries: readonly AuditEntry[]): unknown[] =>
  entries.map((entry) =>
    entry.kind === 'task'
      ? ['task', entry.decidedBy, (entry.args as { status: string }).status, entry.actor]
      : [entry.kind, entry.decision ?? entry.outcome, entry.actor],
  );

/** The states of the call's task as the chat streamed them. */
function taskStates(toolCallId: string): string[] {
  const states: string[] = [];
  for (const event of streamed) {
    if (event.kind !== 'tool-call' || event.call.toolCallId !== toolCallId || !event.call.task) continue;
    const state = `${event.call.task.status}${event.call.task.statusMessage ? `: ${event.call.task.statusMessage}` : ''}`;
    if (states.at(-1) !== state) states.push(state);
  }
  return states;
}

async function allowOnce(chatId: string): Promise<string> {
  const [pending] = services.approvals.pending.list(chatId);
  const toolCallId = pending?.request.toolCallId as string;
  await ok('chat.send', {
    chatId,
    message: { role: 'approval', toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }] },
  });
  return toolCallId;
}

describe('a tool that must run as a task', () => {
  it('waits for the person; once allowed it runs as a task, shows its status, and its result reaches the block and the model', async () => {
    const chatId = await askForResearch({ topic: 'tides' });
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'waiting-approval' });
    // Nothing reached the server before the decision: no task, no task row.
    expect(calls(chatId)[0]?.task).toBeUndefined();
    expect(rows(auditOf(chatId))).toEqual([]);

    const toolCallId = await allowOnce(chatId);
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    const [call] = calls(chatId);
    expect(call).toMatchObject({ status: 'success', task: { status: 'completed' } });
    expect(call?.result?.forModel.text).toContain('# Research Report: tides');
    // Its status messages streamed while it ran, in order.
    const states = taskStates(toolCallId);
    expect(states[0]).toMatch(/^working/);
    expect(states).toContain('working: Gathering sources...');
    expect(states.indexOf('working: Gathering sources...')).toBeLessThan(
      states.indexOf('working: Generating report...'),
    );
    // The model's next request carries the result.
    const last = JSON.stringify(llm.generations().at(-1)?.body);
    expect(last).toContain('Research Report: tides');
    expect(rows(auditOf(chatId))).toEqual([
      ['decision', 'allow_once', 'user'],
      ['task', 'task started on the server', 'working', 'system'],
      ['task', 'task ended', 'completed', 'system'],
      ['result', 'success', null],
    ]);
  });

  it('is stopped at the door by a deny rule added while it waited: no task is created', async () => {
    const chatId = await askForResearch({ topic: 'tides' });
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'waiting-approval' });
    await ok('policy.update', { rules: { add: [{ id: 'no-research', effect: 'deny', server: SERVER, tool: TOOL }] } });
    await allowOnce(chatId);
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    const [call] = calls(chatId);
    expect(call).toMatchObject({ status: 'denied', decision: { actor: 'policy' } });
    expect(call?.task).toBeUndefined();
    expect(rows(auditOf(chatId))).toEqual([
      ['decision', 'allow_once', 'user'],
      ['decision', 'auto_deny', 'policy'],
    ]);
  });

  it("is cancelled by the person's Cancel mid-way: tasks/cancel, and the server says cancelled", async () => {
    services.approvals.policy.update({ tools: { [SERVER]: { [TOOL]: 'auto-approve' } } });
    const chatId = await askForResearch({ topic: 'tides' });
    await until(() => calls(chatId)[0]?.task?.status === 'working', 'the task is working');
    const toolCallId = calls(chatId)[0]?.toolCallId as string;
    // Another chat cannot cancel it.
    const other = services.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
    const refused = await dispatch('chat.cancelTask', { chatId: other, toolCallId });
    expect(refused).toMatchObject({ ok: false, error: { code: 'not_found' } });

    expect(await ok('chat.cancelTask', { chatId, toolCallId })).toEqual({ cancelled: true });
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    const [call] = calls(chatId);
    expect(call).toMatchObject({ status: 'cancelled', task: { status: 'cancelled' } });
    expect(call?.result).toBeUndefined();
    expect(rows(auditOf(chatId))).toEqual([
      ['decision', 'auto_allow', 'policy'],
      ['task', 'task started on the server', 'working', 'system'],
      ['task', 'cancel of the task asked for', 'working', 'user'],
      ['task', 'task ended', 'cancelled', 'system'],
      ['result', 'error', null],
    ]);
    // The model is told the person cancelled it.
    expect(JSON.stringify(llm.generations().at(-1)?.body)).toContain('cancelled this task');
  });

  it('goes on after the reply is stopped, and its result is written into its block when it completes', async () => {
    services.approvals.policy.update({ tools: { [SERVER]: { [TOOL]: 'auto-approve' } } });
    const chatId = await askForResearch({ topic: 'tides' });
    await until(() => calls(chatId)[0]?.task?.status === 'working', 'the task is working');
    expect(await ok('chat.stop', { chatId })).toEqual({ stopped: true });
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    expect(calls(chatId)[0]).toMatchObject({ status: 'running', task: { status: 'working' } });
    // The chat moved on; the task's end arrives later, in the stored block and as a message event.
    await until(() => calls(chatId)[0]?.status === 'success', 'the task completed', 20_000);
    expect(calls(chatId)[0]?.result?.forModel.text).toContain('# Research Report: tides');
    expect(
      streamed.some(
        (event) =>
          event.kind === 'message' &&
          event.message.role === 'assistant' &&
          event.message.reply.turns.some((turn) => turn.toolCalls?.some((call) => call.status === 'success')),
      ),
    ).toBe(true);
    expect(rows(auditOf(chatId)).at(-1)).toEqual(['result', 'success', null]);
  });

  it('asks for the input it needs on the elicitation card, in its chat; the answer reaches the task', async () => {
    services.approvals.policy.update({ tools: { [SERVER]: { [TOOL]: 'auto-approve' } } });
    const chatId = await askForResearch({ topic: 'tides', ambiguous: true });
    let request: ReturnType<typeof services.conversations.serverRequests>[number] | undefined;
    await until(
      () =>
        (request = services.conversations.serverRequests(chatId).find((item) => item.kind === 'elicitation')) !==
        undefined,
      'the elicitation card waits',
    );
    expect(request).toMatchObject({ kind: 'elicitation', serverName: SERVER, chatId });
    const toolCallId = calls(chatId)[0]?.toolCallId as string;
    expect(taskStates(toolCallId).at(-1)).toMatch(/^input_required: Found multiple interpretations/);
    await ok('serverRequests.decide', {
      id: request?.id,
      decision: { action: 'accept', content: { interpretation: 'historical' } },
    });
    expect(await services.conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    expect(calls(chatId)[0]?.result?.forModel.text).toContain('# Research Report: tides (historical)');
    expect(services.audit.query({ kind: 'elicitation' }).entries.map((entry) => entry.decision)).toContain(
      'allow_once',
    );
  });
});
