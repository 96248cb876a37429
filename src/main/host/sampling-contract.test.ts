// Sampling under approval, end to end: server-everything's `trigger-sampling-request` as a real child process, the
// chat's provider on the scripted fake LLM server, decisions through the contract (docs/user/server-requests.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { ChatMessage } from '../../shared/messages';
import type { ServerRequestsChange, ServerRequestView } from '../../shared/server-request-views';
import {
  startFakeLlmServer,
  type FakeLlmServer,
  type FakeTurn,
  type RecordedRequest,
} from '../llm/testing/fake-llm-server';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const SERVER = 'Everything';
const TOOL = 'trigger-sampling-request';

let llm: FakeLlmServer;
/** What the fake model answers: the chat's turns by script; a sampling request (no tools offered) by `sampled`. */
let sampled: (request: RecordedRequest) => FakeTurn;
let chatTurns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({
    respond: (request) => {
      const body = request.body as { tools?: unknown[] };
      if (!body.tools || body.tools.length === 0) return sampled(request);
      return chatTurns.shift() ?? { kind: 'reply', text: ['Done.'] };
    },
  });
});
afterAll(() => llm.close());

let dir: string;
let services: Services;
let dispatch: ReturnType<typeof createDispatcher>;
let changes: ServerRequestsChange[];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-sampling-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  dispatch = createDispatcher(createHandlers(services), (error) => {
    throw error;
  });
  changes = [];
  services.events.subscribe((event, payload) => {
    if (event === 'serverRequests.onDidChange') changes.push(payload as ServerRequestsChange);
  });
  sampled = () => ({ kind: 'reply', text: ['The model says hi.'], usage: { input: 20, output: 7 } });
  chatTurns = [];
  services.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  services.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  services.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything' });
  services.approvals.policy.update({ tools: { [SERVER]: { [TOOL]: 'auto-approve' } } });
  services.mcp.start();
  await until(
    () => services.mcp.tools(SERVER).some((tool) => tool.name === TOOL),
    'server-everything offers trigger-sampling-request',
  );
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

function chatOnFake(): string {
  return services.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
}

/** The model calls the sampling tool with `prompt`; the exchange starts. */
async function askTool(chatId: string, prompt: string, maxTokens = 50): Promise<void> {
  const providerName = services.mcp.tools(SERVER).find((tool) => tool.name === TOOL)?.providerName as string;
  chatTurns.push({
    kind: 'reply',
    toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify({ prompt, maxTokens })] }],
  });
  expect(await dispatch('chat.send', { chatId, message: { role: 'user', text: `sample ${prompt}` } })).toMatchObject({
    ok: true,
  });
}

async function waiting(predicate: (request: ServerRequestView) => boolean = () => true): Promise<ServerRequestView> {
  let found: ServerRequestView | undefined;
  await until(
    () => (found = services.conversations.serverRequests().find(predicate)) !== undefined,
    'a server request waits',
  );
  return found as ServerRequestView;
}

function toolResultText(chatId: string): string {
  const messages = services.conversations.messages(chatId).messages as ChatMessage[];
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const turn of message.reply.turns) {
      for (const call of turn.toolCalls ?? []) {
        texts.push(JSON.stringify(call.result ?? call.error ?? null));
      }
    }
  }
  return texts.join('\n');
}

function samplingRows(): AuditEntry[] {
  return services.audit.query({ kind: 'sampling' }).entries.reverse();
}

function samplingGenerations(): RecordedRequest[] {
  return llm.generations().filter((request) => !(request.body as { tools?: unknown[] }).tools?.length);
}

describe('sampling under approval (server-everything trigger-sampling-request)', () => {
  it('advertises sampling: the conditional tool is offered', () => {
    expect(services.mcp.tools(SERVER).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request', 'trigger-url-elicitation']),
    );
  });

  it('asks in the chat, sends the edited request to the chat model, shows the answer, returns the edited answer; both decisions audited', async () => {
    const chatId = chatOnFake();
    const before = samplingGenerations().length;
    await askTool(chatId, 'hello');
    const request = await waiting();
    expect(request).toMatchObject({
      kind: 'sampling',
      stage: 'request',
      serverName: SERVER,
      chatId,
      systemPrompt: 'You are a helpful test server.',
      maxTokens: 50,
      temperature: 0.7,
      messages: [{ role: 'user', text: `Resource ${TOOL} context: hello` }],
      model: { providerId: 'fake', model: 'fake-large' },
      budget: { used: 0, limit: 10_000 },
    });
    // Nothing reached the model before the decision.
    expect(samplingGenerations().length).toBe(before);
    expect(await dispatch('serverRequests.list', { chatId })).toMatchObject({
      ok: true,
      value: { requests: [{ id: request.id }] },
    });
    expect(await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'send' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(
      await dispatch('serverRequests.decide', {
        id: request.id,
        decision: { action: 'allow-once', messages: ['Edited: say hi'], systemPrompt: 'Be terse.' },
      }),
    ).toMatchObject({ ok: true });

    const answer = await waiting((view) => view.kind === 'sampling' && view.stage === 'answer');
    expect(answer).toMatchObject({
      id: request.id,
      answer: { text: 'The model says hi.', model: 'fake-large', outputTokens: 7 },
    });
    const sent = samplingGenerations().at(-1)?.body as {
      messages: { role: string; content: unknown }[];
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(JSON.stringify(sent.messages)).toContain('Edited: say hi');
    expect(JSON.stringify(sent.messages)).toContain('Be terse.');
    expect(JSON.stringify(sent.messages)).not.toContain('hello');
    // The server has no answer yet: the tool call still runs.
    expect(toolResultText(chatId)).not.toContain('The model says hi');

    expect(
      await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'send', text: 'Edited answer.' } }),
    ).toMatchObject({ ok: true });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('Edited answer.');
    expect(toolResultText(chatId)).not.toContain('The model says hi');

    const rows = samplingRows();
    expect(rows.map((row) => [row.toolName, row.decision, row.actor])).toEqual([
      ['sampling/createMessage', 'allow_once', 'user'],
      ['sampling/answer', 'allow_once', 'user'],
    ]);
    expect(rows[0]).toMatchObject({
      chatId,
      serverName: SERVER,
      toolCallId: request.id,
      editedArgs: { messages: [{ text: 'Edited: say hi' }], systemPrompt: 'Be terse.' },
    });
    expect(rows[1]).toMatchObject({ args: { text: 'The model says hi.' }, editedArgs: { text: 'Edited answer.' } });
    expect((await services.audit.verify()).ok).toBe(true);
  }, 60_000);

  it('a denial goes back to the server as an error and nothing reaches the model', async () => {
    const chatId = chatOnFake();
    const before = samplingGenerations().length;
    await askTool(chatId, 'secret plans');
    const request = await waiting();
    expect(
      await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'deny', reason: 'not now' } }),
    ).toMatchObject({ ok: true });
    await services.conversations.settled(chatId);
    expect(samplingGenerations().length).toBe(before);
    expect(toolResultText(chatId)).toMatch(/denied this sampling request: not now/);
    expect(samplingRows().map((row) => [row.decision, row.reason])).toEqual([['deny', 'not now']]);
    expect(changes.map((change) => change.kind)).toEqual(['waiting', 'resolved']);
  }, 60_000);

  it("the tool call's timeout stands still while the person decides: a 1 s call timeout, each stage decided after 1.5 s, and the call ends with the answer", async () => {
    expect(await dispatch('mcp.edit', { name: SERVER, callTimeoutMs: 1000 })).toMatchObject({
      ok: true,
      value: { callTimeoutMs: 1000 },
    });
    const chatId = chatOnFake();
    await askTool(chatId, 'take your time');
    const request = await waiting();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(
      await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'allow-once' } }),
    ).toMatchObject({ ok: true });
    const answer = await waiting((view) => view.kind === 'sampling' && view.stage === 'answer');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(
      await dispatch('serverRequests.decide', { id: answer.id, decision: { action: 'send', text: 'Slow and sure.' } }),
    ).toMatchObject({ ok: true });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('Slow and sure.');
    expect(toolResultText(chatId)).not.toContain('did not finish');
  }, 60_000);

  it('"Allow for this chat" lets the next request of the server in that chat through without asking, and only in that chat', async () => {
    const chatId = chatOnFake();
    await askTool(chatId, 'one');
    const first = await waiting();
    await dispatch('serverRequests.decide', { id: first.id, decision: { action: 'allow-chat' } });
    const answer = await waiting((view) => view.kind === 'sampling' && view.stage === 'answer');
    await dispatch('serverRequests.decide', { id: answer.id, decision: { action: 'send' } });
    await services.conversations.settled(chatId);

    await askTool(chatId, 'two');
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('The model says hi.');
    expect(
      samplingRows()
        .slice(2)
        .map((row) => [row.toolName, row.decision, row.actor]),
    ).toEqual([
      ['sampling/createMessage', 'session_grant', 'policy'],
      ['sampling/answer', 'auto_allow', 'policy'],
    ]);

    const other = chatOnFake();
    await askTool(other, 'three');
    expect(await waiting((view) => view.chatId === other)).toMatchObject({ kind: 'sampling', stage: 'request' });
    services.conversations.stop(other);
    await services.conversations.settled(other);
    expect(samplingRows().at(-1)).toMatchObject({ chatId: other, decision: 'cancelled', actor: 'system' });
  }, 90_000);

  it('the server setting "deny" and a deny rule on the server refuse unseen; "allow" answers without asking', async () => {
    const chatId = chatOnFake();
    const before = samplingGenerations().length;
    services.approvals.policy.update({
      servers: { [SERVER]: { sampling: 'allow' } },
      rules: { add: [{ id: 'no-sampling', effect: 'deny', server: SERVER, tool: 'sampling' }] },
    });
    await askTool(chatId, 'rule');
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toMatch(/Sampling refused by AI Workbench/);
    expect(samplingRows().at(-1)).toMatchObject({
      decision: 'auto_deny',
      actor: 'policy',
      decidedBy: 'Denied by your rule #1: Everything sampling',
    });

    services.approvals.policy.update({
      servers: { [SERVER]: { sampling: 'deny' } },
      rules: { remove: ['no-sampling'] },
    });
    await askTool(chatId, 'setting');
    await services.conversations.settled(chatId);
    expect(samplingRows().at(-1)).toMatchObject({
      decision: 'auto_deny',
      decidedBy: `server setting '${SERVER}': sampling deny`,
    });
    expect(samplingGenerations().length).toBe(before);

    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'allow' } } });
    await askTool(chatId, 'allowed');
    await services.conversations.settled(chatId);
    expect(samplingGenerations().length).toBe(before + 1);
    expect(
      samplingRows()
        .slice(-2)
        .map((row) => row.decision),
    ).toEqual(['auto_allow', 'auto_allow']);
    expect(changes).toEqual([]);
  }, 90_000);

  it('a token budget per server per chat: the model is told at most what is left, and a spent budget refuses', async () => {
    const chatId = chatOnFake();
    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'allow', samplingTokenBudget: 60 } } });
    sampled = (request) => {
      const body = request.body as { max_tokens?: number; max_completion_tokens?: number };
      return {
        kind: 'reply',
        text: ['ok'],
        usage: { input: 5, output: body.max_completion_tokens ?? body.max_tokens ?? 0 },
      };
    };
    const limits = (): (number | undefined)[] =>
      samplingGenerations().map((request) => {
        const body = request.body as { max_tokens?: number; max_completion_tokens?: number };
        return body.max_completion_tokens ?? body.max_tokens;
      });
    const before = limits().length;
    await askTool(chatId, 'a', 50);
    await services.conversations.settled(chatId);
    await askTool(chatId, 'b', 50);
    await services.conversations.settled(chatId);
    await askTool(chatId, 'c', 50);
    await services.conversations.settled(chatId);
    expect(limits().slice(before)).toEqual([50, 10]);
    expect(samplingRows().at(-1)).toMatchObject({
      decision: 'auto_deny',
      decidedBy: expect.stringContaining('token budget spent'),
    });
    // Another chat has its own budget.
    const other = chatOnFake();
    await askTool(other, 'd', 50);
    await services.conversations.settled(other);
    expect(limits().slice(before)).toEqual([50, 10, 50]);
  }, 90_000);
});
