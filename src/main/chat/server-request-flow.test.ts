// The attacker's view of server requests (docs/user/server-requests.md): a server cannot sample without a decision,
// a deny rule wins (also over edits and grants), a budget cannot be exceeded even by requests at once, and an answer
// that does not fit what waits changes nothing. Real policy and audit log (SQLite); the provider records its calls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CreateMessageRequestParams } from '@modelcontextprotocol/sdk/types.js';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServerRequestsChange } from '../../shared/server-request-views';
import type { GenerateEvent, GenerateRequest, LlmProvider } from '../llm/provider';
import { loadSdkTypes } from '../mcp/sdk-types';
import { createServices, type Services } from '../services';
import { createServerRequests, type ServerRequests } from './server-request-flow';
import { RESTART_WORDS } from '../../shared/decisions';

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

const params = (text: string, maxTokens = 40): CreateMessageRequestParams => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
  maxTokens,
});
const origin = (chat: string | null = chatId, signal = new AbortController().signal) => ({
  serverName: SERVER,
  chatId: chat,
  signal,
});
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
    waits: services.approvals.pending.serverRequests,
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
    // The card counts down to the moment the timeout answers (the tool-call card's countdown).
    const [waiting] = requests.list(chatId);
    expect(waiting?.expiresAt).toBe((waiting?.createdAt ?? 0) + 1000);
    await expect(result).rejects.toThrow(/Sampling refused by AI Workbench: no answer within the approval timeout/);
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
    expect(
      rows()
        .map((row) => row.decision)
        .sort(),
    ).toEqual(['cancelled', 'cancelled']);
  });

  it('a deny rule wins over the server setting "allow", over "Allow for this chat", and over an edit that brings the denied words in', async () => {
    services.approvals.policy.update({
      rules: {
        add: [
          {
            id: 'no-secrets',
            effect: 'deny',
            server: SERVER,
            tool: 'sampling',
            args: [{ pointer: '/messages/0/text', match: 'regex', value: 'secret' }],
          },
        ],
      },
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
    expect(() => requests.decide(editedId, { action: 'allow-once', messages: ['now the secret'] })).toThrow(
      /The edited request is refused: Denied by your rule #1/,
    );
    // Refused with nothing recorded; the request still waits for an answer that applies.
    expect(rows()).toHaveLength(before);
    expect(requests.list(other)).toHaveLength(1);
    requests.decide(editedId, { action: 'deny' });
    await expect(edited).rejects.toThrow(/denied/);
    expect(generated).toHaveLength(1);
  });

  it('a budget cannot be exceeded, even by requests made at once', async () => {
    services.approvals.policy.update({ servers: { [SERVER]: { sampling: 'allow', samplingTokenBudget: 100 } } });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => requests.sample(origin(), params(`r${index}`, 40))),
    );
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
    const url = requests.elicit(origin(), {
      mode: 'url',
      message: 'Open',
      url: 'https://evil.example/x',
      elicitationId: 'e1',
    });
    await settle();
    const id = requests.list(chatId)[0]?.id as string;
    expect(() => requests.decide(id, { action: 'allow-once' })).toThrow(/takes accept, decline or cancel/);
    requests.decide(id, { action: 'decline' });
    await expect(url).resolves.toEqual({ action: 'decline' });

    const form = requests.elicit(origin(), {
      message: 'Age?',
      requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] },
    });
    await settle();
    const formId = requests.list(chatId)[0]?.id as string;
    expect(() => requests.decide(formId, { action: 'accept', content: { age: -3 } })).toThrow(/age must be 0 or more/);
    expect(requests.list(chatId)).toHaveLength(1);
    requests.decide(formId, { action: 'accept', content: { age: 3 } });
    await expect(form).resolves.toEqual({ action: 'accept', content: { age: 3 } });
  });
});

describe('server requests wait in the one pending store', () => {
  const createFlow = () =>
    createServerRequests({
      audit: services.audit,
      waits: services.approvals.pending.serverRequests,
      policy: () => services.approvals.policy.compiled(),
      modelFor: () => ({ providerId: 'demo', model: 'demo' }),
      provider: () => provider,
    });
  /** Ends the services as the end of the process would (the flow that held the requests gets no word), and starts them again. */
  const restart = async (): Promise<void> => {
    await services.conversations.dispose();
    services.close();
    services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0', managedPolicyFile: null });
    requests = createFlow();
  };
  const allowForChat = async (): Promise<void> => {
    const first = requests.sample(origin(), params('hello'));
    await settle();
    const id = requests.list(chatId)[0]?.id as string;
    requests.decide(id, { action: 'allow-chat' });
    await settle();
    requests.decide(id, { action: 'send' });
    await first;
  };

  it('"Allow for this chat" is a grant like a tool\'s: it survives a restart, is listed, and once revoked the server asks again', async () => {
    await allowForChat();
    await restart();
    const grants = services.approvals.chats.grants(chatId);
    expect(grants).toEqual([
      expect.objectContaining({ chatId, serverName: SERVER, toolName: 'sampling/createMessage' }),
    ]);
    // After the restart the grant still answers: no card, a `session_grant` row.
    await requests.sample(origin(), params('again'));
    expect(requests.list()).toEqual([]);
    expect(rows().at(-2)).toMatchObject({
      toolName: 'sampling/createMessage',
      decision: 'session_grant',
      actor: 'policy',
    });
    // Only in its chat.
    const other = services.chats.create({}).id;
    void requests.sample(origin(other), params('elsewhere')).catch(() => {});
    await settle();
    expect(requests.list(other)).toHaveLength(1);
    // Revoked, it asks again; the revocation is a policy row.
    services.approvals.chats.revoke(chatId, SERVER, 'sampling/createMessage');
    void requests.sample(origin(), params('after the revoke')).catch(() => {});
    await settle();
    expect(requests.list(chatId)).toHaveLength(1);
    expect(services.audit.query({ kind: 'policy' }).entries.map((row) => row.decidedBy)).toContain(
      `Revoked "Allow for this chat" of ${SERVER}.sampling/createMessage`,
    );
  });

  it("a sampling grant never allows a tool call, and a tool's grant never allows sampling", async () => {
    await allowForChat();
    const [grant] = services.approvals.chats.grants(chatId);
    // Its definition hash is none a tool definition has (a SHA-256 in hex), so the pipeline never takes it for a tool's.
    expect(grant?.definitionHash).not.toMatch(/^[0-9a-f]{64}$/);
    const other = services.chats.create({}).id;
    const store = services.approvals.pending.serverRequests;
    expect(store.grantedInChat(other, SERVER)).toBe(false);
    expect(store.grantedInChat(chatId, SERVER)).toBe(true);
    expect(store.grantedInChat(chatId, 'Another server')).toBe(false);
  });

  it('"Allow for this chat" of sampling is bound to what the server runs: it follows a rename, allows nothing once the command changed, and goes with a removal', async () => {
    services.mcpServers.add(SERVER, { command: 'sneaky-server', args: ['--stdio'] });
    await allowForChat();
    services.mcpServers.edit({ name: SERVER, rename: 'Renamed' });
    expect(services.approvals.chats.grants(chatId)).toEqual([
      expect.objectContaining({ serverName: 'Renamed', toolName: 'sampling/createMessage' }),
    ]);
    const as = (serverName: string) => ({ ...origin(), serverName });
    // The grant answers under the new name, and not under the old one.
    await requests.sample(as('Renamed'), params('renamed'));
    expect(requests.list()).toEqual([]);
    expect(rows().at(-2)).toMatchObject({ serverName: 'Renamed', decision: 'session_grant' });
    expect(services.approvals.pending.serverRequests.grantedInChat(chatId, SERVER)).toBe(false);
    // Another command under the same name is another server: the grant made for the old one does not allow it.
    services.mcpServers.edit({ name: 'Renamed', command: 'other-server' });
    const changed = requests.sample(as('Renamed'), params('changed'));
    void changed.catch(() => {});
    await settle();
    expect(requests.list(chatId)).toHaveLength(1);
    requests.decide(requests.list(chatId)[0]?.id as string, { action: 'deny' });
    await expect(changed).rejects.toThrow();
    expect(generated.map((request) => JSON.stringify(request.messages))).not.toContain('changed');
    // Removed, the grant goes: a server added again under the name starts with nothing.
    services.mcpServers.remove('Renamed');
    expect(services.approvals.chats.grants(chatId)).toEqual([]);
  });

  it('a request that waited while the app ended is resolved `cancelled` at the next start, saying why, and cannot be answered', async () => {
    const lost = requests.sample(origin(), params('across a restart'));
    void lost.catch(() => {});
    const asked = requests.elicit(origin(null), {
      message: 'Age?',
      requestedSchema: { type: 'object', properties: { age: { type: 'integer' } } },
    });
    void asked.catch(() => {});
    await settle();
    const ids = [...requests.list()].map((view) => view.id);
    expect(ids).toHaveLength(2);
    await restart();
    expect(requests.list()).toEqual([]);
    for (const id of ids)
      expect(() => requests.decide(id, { action: 'deny' })).toThrow(/No server request waits by that id/);
    const ended = services.audit
      .query({})
      .entries.filter((row) => ids.includes(row.toolCallId))
      .map((row) => [row.kind, row.decision, row.actor, row.decidedBy]);
    expect(ended.sort()).toEqual([
      ['elicitation', 'cancelled', 'system', RESTART_WORDS],
      ['sampling', 'cancelled', 'system', RESTART_WORDS],
    ]);
    expect(generated).toEqual([]);
  });

  it('a request another running process holds is left to it; one whose process is gone is resolved', async () => {
    const db = new BetterSqlite3(services.databaseFile);
    const insertHeld = (id: string, owner: string) =>
      db
        .prepare(
          "INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at, owner) VALUES (NULL, ?, 'elicitation', ?, 1, ?)",
        )
        .run(
          id,
          JSON.stringify({
            id,
            serverName: SERVER,
            chatId: null,
            createdAt: 1,
            kind: 'elicitation',
            mode: 'url',
            message: 'Open',
            url: 'https://example.com/',
            elicitationId: 'e',
          }),
          owner,
        );
    insertHeld('held-by-parent', `${process.ppid}:other-engine`);
    insertHeld('held-by-nobody', '2147483646:gone');
    await restart();
    const status = (id: string) =>
      (db.prepare('SELECT status FROM pending_requests WHERE request_id = ?').get(id) as { status: string }).status;
    expect(status('held-by-parent')).toBe('pending');
    expect(status('held-by-nobody')).toBe('cancelled');
    db.close();
    // Neither is this process's to answer.
    expect(requests.list()).toEqual([]);
  });
});
