// The attacker's view of server requests (docs/user/server-requests.md): a server cannot sample without a decision,
// a deny rule wins (also over edits and grants), a budget cannot be exceeded even by requests at once, and an answer
// that does not fit what waits changes nothing. Real policy and audit log (SQLite); the provider records its calls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CreateMessageRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServerRequestsChange } from '../../shared/server-request-views';
import type { GenerateEvent, GenerateRequest, LlmProvider } from '../llm/provider';
import { loadSdkTypes } from '../mcp/sdk-types';
import { createServices, type Services } from '../services';
import { createServerRequests, type ServerRequests } from './server-request-flow';

const SERVER = 'Sneaky';
let dir: string;
let services: Services;
let requests: ServerRequests;
let generated: GenerateRequest[];
let waiting: ServerRequestsChange[];
let chatId: string;

const provider: LlmProvider = {
  kind: 'demo',
  async *generate(request): AsyncGenerator<GenerateEvent> {
    generated.push(request);
    yield { type: 'text', delta: 'answer' };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: request.maxOutputTokens ?? 0 } };
    yield { type: 'finish', reason: 'stop' };
  },
  listModels: async () => [],
};

const params = (text: string, maxTokens = 40): CreateMessageRequestParams => ({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens });
const origin = (chat: string | null = chatId, signal = new AbortController().signal) => ({ serverName: SERVER, chatId: chat, signal });
const rows = () => services.audit.query({ kind: 'sampling' }).entries.reverse();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-server-requests-'));
  services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0', managedPolicyFile: null });
  generated = [];
  waiting = [];
  services.events.subscribe((event, payload) => {
    if (event === 'serverRequests.onDidChange') waiting.push(payload as ServerRequestsChange);
  });
  requests = createServerRequests({
    audit: services.audit,
    events: services.events,
    policy: () => services.approvals.policy.compiled(),
    modelFor: () => ({ providerId: 'demo', model: 'demo' }),
    provider: () => provider,
  });
  chatId = services.chats.create({}).id;
});
afterEach(async () => {
  requests.dispose();
  await services.conversations.dispose();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

// The requests come from no running server here, so nothing loaded the SDK a refusal is made with (../mcp/sdk-types.ts).
beforeAll(async () => {
  await loadSdkTypes();
});

describe('a server cannot get around the person', () => {
  it('no decision, no model call: a request waits, and the approval timeout refuses it as a timeout', async () => {
    services.approvals.policy.update({ timeoutSeconds: 1 });
    const result = requests.sample(origin(), params('spend tokens'));
    await settle();
    expect(generated).toEqual([]);
    expect(requests.list(chatId)).toHaveLength(1);
    await expect(result).rejects.toThrow(/denied this sampling request/);
    expect(generated).toEqual([]);
    expect(rows().map((row) => [row.decision, row.actor])).toEqual([['timeout', 'system']]);
  });

  it('the server cancelling its request, or a stop, leaves nothing waiting and nothing sent', async () => {
    const controller = new AbortController();
    const cancelled = requests.sample(origin(chatId, controller.signal), params('a'));
    const stopped = requests.sample(origin(), params('b'));
    await settle();
    controller.abort();
    requests.cancelChat(chatId);
    await expect(cancelled).rejects.toThrow();
    await expect(stopped).rejects.toThrow();
    expect(generated).toEqual([]);
    expect(requests.list()).toEqual([]);
    expect(rows().map((row) => row.decision).sort()).toEqual(['cancelled', 'cancelled']);
  });

  it('a deny rule wins over the server setting "allow", over "Allow for this chat", and over an edit that brings the denied words in', async () => {
    services.approvals.policy.update({
      rules: { add: [{ id: 'no-secrets', effect: 'deny', server: SERVER, tool: 'sampling', args: [{ pointer: '/messages/0/text', match: 'regex', value: 'secret' }] }] },
    });
    // Granted for the chat first, with an innocent request.
    const first = requests.sample(origin(), params('hello'));
    await settle();
    const [view] = requests.list(chatId);
    requests.decide(view?.id as string, { action: 'allow-chat' });
    await settle();
    requests.decide(view?.id as string, { action: 'send' });
    await first;
    expect(generated).toHaveLength(1);

    await expect(requests.sample(origin(), params('tell me the secret'))).rejects.toThrow(/Denied by your rule #1/);
    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'allow' } } });
    await expect(requests.sample(origin(), params('the secret again'))).rejects.toThrow(/Denied by your rule #1/);
    expect(generated).toHaveLength(1);

    // An edit by the person is checked too: the rule stops what it matches, whoever wrote it.
    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'ask' } } });
    const other = services.chats.create({}).id;
    const edited = requests.sample(origin(other), params('harmless'));
    await settle();
    const editedId = requests.list(other)[0]?.id as string;
    const before = rows().length;
    expect(() => requests.decide(editedId, { action: 'allow-once', messages: ['now the secret'] })).toThrow(/The edited request is refused: Denied by your rule #1/);
    // Refused with nothing recorded; the request still waits for an answer that applies.
    expect(rows()).toHaveLength(before);
    expect(requests.list(other)).toHaveLength(1);
    requests.decide(editedId, { action: 'deny' });
    await expect(edited).rejects.toThrow(/denied/);
    expect(generated).toHaveLength(1);
  });

  it('a budget cannot be exceeded, even by requests made at once', async () => {
    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'allow', samplingTokenBudget: 100 } } });
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => requests.sample(origin(), params(`r${index}`, 40))));
    const told = generated.map((request) => request.maxOutputTokens ?? 0);
    expect(told.reduce((sum, tokens) => sum + tokens, 0)).toBeLessThanOrEqual(100);
    expect(told).toEqual([40, 40, 20]);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(3);
    expect(rows().filter((row) => row.decidedBy?.includes('token budget spent'))).toHaveLength(3);
  });

  it('answers that do not fit what waits are refused and change nothing', async () => {
    const chatLess = requests.sample(origin(null), params('no chat'));
    await settle();
    const id = requests.list(null)[0]?.id as string;
    expect(() => requests.decide('forged-id', { action: 'allow-once' })).toThrow(/No server request waits/);
    expect(() => requests.decide(id, { action: 'allow-chat' })).toThrow(/came from no chat/);
    expect(() => requests.decide(id, { action: 'accept' })).toThrow(/takes allow-once, allow-chat or deny/);
    expect(() => requests.decide(id, { action: 'allow-once', messages: ['a', 'b'] })).toThrow(/2 messages/);
    expect(generated).toEqual([]);
    expect(rows()).toEqual([]);
    requests.decide(id, { action: 'deny' });
    await expect(chatLess).rejects.toThrow(/denied/);
    expect(waiting.map((change) => change.kind)).toEqual(['waiting', 'resolved']);
  });

  it('an elicitation resolves only with the person\'s answer; an invalid form or a URL "accept" with a wrong action is refused', async () => {
    const url = requests.elicit(origin(), { mode: 'url', message: 'Open', url: 'https://evil.example/x', elicitationId: 'e1' });
    await settle();
    const id = requests.list(chatId)[0]?.id as string;
    expect(() => requests.decide(id, { action: 'allow-once' })).toThrow(/takes accept, decline or cancel/);
    requests.decide(id, { action: 'decline' });
    await expect(url).resolves.toEqual({ action: 'decline' });

    const form = requests.elicit(origin(), { message: 'Age?', requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] } });
    await settle();
    const formId = requests.list(chatId)[0]?.id as string;
    expect(() => requests.decide(formId, { action: 'accept', content: { age: -3 } })).toThrow(/age must be >= 0/);
    expect(requests.list(chatId)).toHaveLength(1);
    requests.decide(formId, { action: 'accept', content: { age: 3 } });
    await expect(form).resolves.toEqual({ action: 'accept', content: { age: 3 } });
  });
});
