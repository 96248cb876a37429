// The app's inbox lists and answers what another process holds (docs/user/approvals.md#one-inbox): a `workbench chat`
// (host C: the CLI's services, command `chat`) runs server-everything as a real child process and holds its sampling
// and form requests; the app (host A, on the same SQLite file) lists them through the contract, marked with their
// holder, and answers them through the answers inbox. C applies each through the card's path and records it "from the
// app" — or refuses it with why. What only the card gives, a forged row and a request decided or gone are refused.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../shared/messages';
import type { ServerRequestView } from '../../shared/server-request-views';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { DATABASE_FILE_NAME, openDatabase } from '../storage/database';
import { createServices, type Services } from '../services';
import { holderKind, holderWords } from '../approval/request-holders';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const SERVER = 'Everything';

let llm: FakeLlmServer;
let turns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({
    respond: (request) =>
      (request.body as { tools?: unknown[] }).tools?.length
        ? (turns.shift() ?? { kind: 'reply', text: ['Done.'] })
        : { kind: 'reply', text: ['A haiku.'] },
  });
});
afterAll(() => llm.close());

let dir: string;
let chat: Services;
let app: Services;
let chatOpen: boolean;
let dispatchApp: ReturnType<typeof createDispatcher>;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-held-elsewhere-'));
  chat = createServices({ dataDir: dir, host: 'cli', command: 'chat', version: '0.0.0', managedPolicyFile: null });
  chatOpen = true;
  turns = [];
  chat.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  chat.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  chat.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything' });
  chat.approvals.policy.update({
    tools: {
      [SERVER]: {
        'trigger-elicitation-request': 'auto-approve',
        'trigger-url-elicitation': 'auto-approve',
        'trigger-sampling-request': 'auto-approve',
      },
    },
  });
  chat.mcp.start();
  await until(() => chat.mcp.tools(SERVER).some((tool) => tool.name === 'trigger-sampling-request'), 'the server');
  app = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  dispatchApp = createDispatcher(createHandlers(app), () => {});
}, 60_000);
afterEach(async () => {
  app.close();
  if (chatOpen) await closeChat();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function closeChat(): Promise<void> {
  chatOpen = false;
  await chat.conversations.dispose();
  await chat.mcp.stop();
  chat.close();
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The model of the `workbench chat` calls `tool`; returns the chat once the server's request waits there. */
async function asks(
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ chatId: string; request: ServerRequestView }> {
  const chatId = chat.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
  const providerName = chat.mcp.tools(SERVER).find((item) => item.name === tool)?.providerName as string;
  turns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify(args)] }] });
  chat.conversations.send(chatId, { role: 'user', text: `call ${tool}` });
  let request: ServerRequestView | undefined;
  await until(() => (request = chat.conversations.serverRequests(chatId)[0]) !== undefined, 'a request waits');
  return { chatId, request: request as ServerRequestView };
}

/** What the app's inbox lists (`serverRequests.list`, every chat). */
async function listed(): Promise<ServerRequestView[]> {
  const envelope = await dispatchApp('serverRequests.list', {});
  if (!envelope.ok) throw new Error(envelope.error.message);
  return (envelope.value as { requests: ServerRequestView[] }).requests;
}

const decide = (id: string, decision: Record<string, unknown>) =>
  dispatchApp('serverRequests.decide', { id, decision } as never);

const resultText = (chatId: string): string =>
  (chat.conversations.messages(chatId).messages as ChatMessage[])
    .flatMap((message) =>
      message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
    )
    .map((call) => JSON.stringify(call.result ?? call.error ?? null))
    .join('\n');

const rowsOf = (id: string) =>
  app.audit
    .query({ limit: 100 })
    .entries.reverse()
    .filter((entry) => entry.toolCallId === id)
    .map((entry) => ({ decision: entry.decision, actor: entry.actor, decidedBy: entry.decidedBy }));

const HELD = { heldElsewhere: { pid: process.pid, process: 'workbench chat' } };

describe("the app's inbox and a request held by a `workbench chat`", () => {
  it('lists a sampling request with its holder, allows it once and sends the answer; recorded "from the app"', async () => {
    const { chatId, request } = await asks('trigger-sampling-request', { prompt: 'a haiku', maxTokens: 50 });
    expect(await listed()).toEqual([expect.objectContaining({ id: request.id, kind: 'sampling', ...HELD })]);
    // The holder's own listing does not mark it: it is answered there on the card.
    expect(chat.conversations.serverRequests(chatId)[0]?.heldElsewhere).toBeUndefined();

    // "Allow for this chat" and edits are given only where it is held: refused here, nothing sent.
    expect(await decide(request.id, { action: 'allow-chat' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('"Allow for this chat" is given on the card') },
    });
    expect(await decide(request.id, { action: 'allow-once', messages: ['something else'] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('edited on the card') },
    });
    expect(rowsOf(request.id)).toEqual([]);

    expect(await decide(request.id, { action: 'allow-once' })).toEqual({ ok: true, value: { request: null } });
    await until(
      () =>
        chat.conversations.serverRequests(chatId).some((item) => item.kind === 'sampling' && item.stage === 'answer'),
      "the model's answer waits",
    );
    expect(await listed()).toEqual([
      expect.objectContaining({ id: request.id, kind: 'sampling', stage: 'answer', ...HELD }),
    ]);
    expect(await decide(request.id, { action: 'send', text: 'my own words' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await decide(request.id, { action: 'send' })).toMatchObject({ ok: true });
    await chat.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('A haiku.');
    expect(rowsOf(request.id)).toEqual([
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: allow-once from the app' },
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: send from the app' },
    ]);
    // Answered: it leaves the list, and a second answer says it was decided.
    expect(await listed()).toEqual([]);
    expect(await decide(request.id, { action: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: `'${request.id}' was already decided: Answer sent.` },
    });
  }, 90_000);

  it('accepts a form with its fields, checked by the holder against its schema', async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    expect(await listed()).toEqual([expect.objectContaining({ id: request.id, kind: 'elicitation', mode: 'form' })]);
    const form = { name: 'Ada Lovelace', check: true, email: 'ada@example.com' };
    expect(await decide(request.id, { action: 'accept', content: { ...form, email: 'no' } })).toMatchObject({
      ok: false,
      error: {
        code: 'conflict',
        message: expect.stringMatching(/^Not applied: The answer does not fit the form: .*email/),
      },
    });
    expect(await listed()).toHaveLength(1);
    expect(await decide(request.id, { action: 'accept', content: form })).toMatchObject({ ok: true });
    await chat.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('Name: Ada Lovelace');
    expect(rowsOf(request.id)).toEqual([
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: accept from the app' },
    ]);
  }, 90_000);

  it('a page to open is declined from here, not opened; a deny rule added meanwhile still stops a form', async () => {
    const { chatId: pageChat, request: page } = await asks('trigger-url-elicitation', {
      url: 'https://example.com/consent',
      message: 'Sign in to Example',
    });
    expect(await listed()).toEqual([expect.objectContaining({ id: page.id, mode: 'url', ...HELD })]);
    expect(await decide(page.id, { action: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('a page to open is opened from the app') },
    });
    expect(await decide(page.id, { action: 'decline' })).toMatchObject({ ok: true });
    await chat.conversations.settled(pageChat);

    const { chatId, request } = await asks('trigger-elicitation-request');
    // Added where the holder sees it at once (another process sees it when it reads settings.json again).
    chat.approvals.policy.update({
      rules: { add: [{ id: 'no-forms', effect: 'deny', server: SERVER, tool: 'elicitation' }] },
    });
    expect(
      await decide(request.id, { action: 'accept', content: { name: 'Ada', check: true, email: 'a@b.example' } }),
    ).toMatchObject({ ok: true });
    await chat.conversations.settled(chatId);
    expect(resultText(chatId)).not.toContain('Ada');
    expect(rowsOf(request.id).map((row) => row.decision)).toEqual(['allow_once', 'auto_deny']);
  }, 90_000);

  it('a request whose holder ended leaves the list, and an answer to it says why', async () => {
    const { request } = await asks('trigger-elicitation-request');
    expect(await listed()).toHaveLength(1);
    // A `workbench chat` that ends cleanly cancels what it held.
    await closeChat();
    expect(await listed()).toEqual([]);
    expect(await decide(request.id, { action: 'decline' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: `'${request.id}' was already decided: the server or a stop cancelled it.` },
    });
    // One that was killed leaves its row waiting, held by a pid that no longer runs: not listed, not answerable.
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
    const view = { ...request, id: '11111111-1111-4111-8111-111111111111', chatId: null };
    db.prepare(
      "INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at, owner) VALUES (NULL, ?, 'elicitation', ?, 1, ?)",
    ).run(view.id, JSON.stringify(view), `${ended}:gone:cli chat`);
    db.close();
    expect(await listed()).toEqual([]);
    expect(await decide(view.id, { action: 'decline' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('held by an AI Workbench process that has ended') },
    });
    expect(await decide('00000000-0000-4000-8000-000000000000', { action: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringContaining('it was answered, timed out or cancelled') },
    });
  }, 90_000);

  it("a forged row names no holder it wants: the listing says the owner's, and the holder still checks", async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
    try {
      // The stored request claims another holder, and to be a page to open: neither is believed.
      const row = db.prepare('SELECT request FROM pending_requests WHERE request_id = ?').get(request.id) as {
        request: string;
      };
      const forged = { ...JSON.parse(row.request), heldElsewhere: { pid: 1, process: 'your bank' } };
      db.prepare('UPDATE pending_requests SET request = ? WHERE request_id = ?').run(
        JSON.stringify(forged),
        request.id,
      );
    } finally {
      db.close();
    }
    expect(await listed()).toEqual([expect.objectContaining({ id: request.id, ...HELD })]);
    // "Allow for this chat" refused by the app, and written straight into the answers inbox "from the app", as a
    // hostile writer would: the holder refuses it too, and the form still waits.
    expect(await decide(request.id, { action: 'allow-chat' })).toMatchObject({ ok: false });
    const writer = openDatabase(path.join(dir, DATABASE_FILE_NAME));
    try {
      const { owner } = writer.prepare('SELECT owner FROM pending_requests WHERE request_id = ?').get(request.id) as {
        owner: string;
      };
      writer
        .prepare(
          "INSERT INTO pending_answers (answer_id, request_id, owner, decision, origin, created_at) VALUES ('forged', ?, ?, ?, 'app', 0)",
        )
        .run(request.id, owner, JSON.stringify({ action: 'allow-chat' }));
    } finally {
      writer.close();
    }
    chat.approvals.pending.serverRequests.takeAnswers();
    expect(app.approvals.pending.serverRequests.relayed('forged')).toEqual({
      applied: false,
      why: '"Allow for this chat" is given on the card in the app, not from another process',
    });
    expect(chat.conversations.serverRequests(chatId)).toHaveLength(1);
    expect(rowsOf(request.id)).toEqual([]);
  }, 90_000);
});

describe('the holder named in an owner token', () => {
  it('says what the process is, and nothing it does not know', () => {
    expect(holderKind('cli', 'chat')).toBe('cli chat');
    expect(holderKind('cli', 'approvals list')).toBe('cli approvals list');
    expect(holderKind('cli', '`rm -rf /`')).toBe('cli');
    expect(holderKind('electron')).toBe('electron');
    expect(holderWords('42:abc:cli chat')).toBe('workbench chat');
    expect(holderWords('42:abc:electron')).toBe('the AI Workbench app');
    expect(holderWords('42:abc:browser')).toBe('AI Workbench in browser mode');
    expect(holderWords('42:abc')).toBe('another AI Workbench process');
    expect(holderWords('42:abc:cli <img src=x>')).toBe('another AI Workbench process');
    expect(holderWords('42:abc:root')).toBe('another AI Workbench process');
  });
});
