// Answering a server's request held by another process (docs/user/approvals.md#one-inbox): the app (host A) runs
// server-everything as a real child process and holds its sampling and elicitation requests; a second host on the same
// SQLite file (B, as `workbench approvals` opens one) answers them through the answers inbox, and A applies each through
// the card's path — checked, claimed with its audit row "from the CLI" — or refuses it with why. Then the real CLI, as
// a child process, does the same.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../shared/messages';
import type { ServerRequestView } from '../shared/server-request-views';
import { runCli } from './testing/cli-process';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../main/llm/testing/fake-llm-server';
import { DATABASE_FILE_NAME, openDatabase } from '../main/storage/database';
import { createServices, type Services } from '../main/services';
import { createDispatcher } from '../main/host/dispatcher';
import { createHandlers } from '../main/host/handlers';

const SERVER = 'Everything';

let llm: FakeLlmServer;
let turns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({
    // A sampling request is generated without tools; the chat's turns with them.
    respond: (request) =>
      (request.body as { tools?: unknown[] }).tools?.length
        ? (turns.shift() ?? { kind: 'reply', text: ['Done.'] })
        : { kind: 'reply', text: ['A haiku.'] },
  });
});
afterAll(() => llm.close());

let dir: string;
let app: Services;
let cli: Services;
let dispatchCli: ReturnType<typeof createDispatcher>;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-elsewhere-'));
  app = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  turns = [];
  app.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  app.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  app.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything' });
  app.approvals.policy.update({
    tools: {
      [SERVER]: {
        'trigger-elicitation-request': 'auto-approve',
        'trigger-url-elicitation': 'auto-approve',
        'trigger-sampling-request': 'auto-approve',
      },
    },
  });
  app.mcp.start();
  await until(() => app.mcp.tools(SERVER).some((tool) => tool.name === 'trigger-sampling-request'), 'the server');
  cli = createServices({ dataDir: dir, host: 'cli', version: '0.0.0', managedPolicyFile: null });
  dispatchCli = createDispatcher(createHandlers(cli), () => {});
}, 60_000);
afterEach(async () => {
  cli.close();
  await app.conversations.dispose();
  await app.mcp.stop();
  app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The model calls `tool` in a new chat of the app; returns the chat once the server's request waits there. */
async function asks(
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ chatId: string; request: ServerRequestView }> {
  const chatId = app.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
  const providerName = app.mcp.tools(SERVER).find((item) => item.name === tool)?.providerName as string;
  turns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify(args)] }] });
  app.conversations.send(chatId, { role: 'user', text: `call ${tool}` });
  let request: ServerRequestView | undefined;
  await until(() => (request = app.conversations.serverRequests(chatId)[0]) !== undefined, 'a request waits');
  return { chatId, request: request as ServerRequestView };
}

const resultText = (chatId: string): string =>
  (app.conversations.messages(chatId).messages as ChatMessage[])
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

const decide = (id: string, decision: Record<string, unknown>) =>
  dispatchCli('serverRequests.decide', { id, decision } as never);

const FORM = { name: 'Ada Lovelace', check: true, email: 'ada@example.com' };

describe('an answer from another process', () => {
  it('is listed there, applied by the process that holds the request, and recorded "from the CLI"', async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    expect(cli.approvals.pending.serverRequests.waitingAnywhere()).toMatchObject([
      { here: false, request: { id: request.id, kind: 'elicitation' } },
    ]);
    expect(app.approvals.pending.serverRequests.waitingAnywhere()).toMatchObject([{ here: true }]);

    // The holder checks the form as the card's answer is checked: a wrong one is refused there, and still waits.
    expect(await decide(request.id, { action: 'accept', content: { ...FORM, email: 'no' } })).toMatchObject({
      ok: false,
      error: {
        code: 'conflict',
        message: expect.stringMatching(/^Not applied: The answer does not fit the form: .*email/),
      },
    });
    expect(app.conversations.serverRequests(chatId)).toHaveLength(1);
    expect(rowsOf(request.id)).toEqual([]);

    expect(await decide(request.id, { action: 'accept', content: FORM })).toEqual({
      ok: true,
      value: { request: null },
    });
    await app.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('Name: Ada Lovelace');
    expect(rowsOf(request.id)).toEqual([
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: accept from the CLI' },
    ]);
    // Decided: a second answer is refused by name, from either side.
    expect(await decide(request.id, { action: 'decline' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: `'${request.id}' was already decided: Accepted.` },
    });
  }, 60_000);

  it('sampling: allowed there, the model writes here, and its answer is sent from there', async () => {
    const { chatId, request } = await asks('trigger-sampling-request', { prompt: 'a haiku', maxTokens: 50 });
    // "Allow for this chat" and edits are given on the card only.
    expect(await decide(request.id, { action: 'allow-chat' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('"Allow for this chat" is given on the card') },
    });
    expect(await decide(request.id, { action: 'allow-once', systemPrompt: 'obey' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await decide(request.id, { action: 'allow-once' })).toMatchObject({ ok: true });
    await until(
      () =>
        app.conversations.serverRequests(chatId).some((item) => item.kind === 'sampling' && item.stage === 'answer'),
      "the model's answer waits",
    );
    expect(await decide(request.id, { action: 'send' })).toMatchObject({ ok: true });
    await app.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('A haiku.');
    expect(rowsOf(request.id).map((row) => row.decidedBy)).toEqual([
      'the person: allow-once from the CLI',
      'the person: send from the CLI',
    ]);
  }, 60_000);

  it('a deny rule added while it waited still stops what was allowed from there', async () => {
    const { chatId, request } = await asks('trigger-sampling-request', { prompt: 'secret plans', maxTokens: 50 });
    app.approvals.policy.update({
      rules: { add: [{ id: 'no-secrets', effect: 'deny', server: SERVER, tool: 'sampling' }] },
    });
    expect(await decide(request.id, { action: 'allow-once' })).toMatchObject({ ok: true });
    await app.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('Sampling refused by AI Workbench');
    expect(rowsOf(request.id).map((row) => row.decision)).toEqual(['allow_once', 'auto_deny']);
  }, 60_000);

  it('a deny rule added while a form waited declines it when accepted from there, and says so in the log', async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    app.approvals.policy.update({
      rules: { add: [{ id: 'no-forms', effect: 'deny', server: SERVER, tool: 'elicitation' }] },
    });
    expect(await decide(request.id, { action: 'accept', content: FORM })).toMatchObject({ ok: true });
    await app.conversations.settled(chatId);
    expect(resultText(chatId)).not.toContain('Ada Lovelace');
    expect(rowsOf(request.id)).toEqual([
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: accept from the CLI' },
      {
        decision: 'auto_deny',
        actor: 'policy',
        decidedBy: 'Denied by your rule #1: Everything elicitation (checked when the answer was about to be sent)',
      },
    ]);
  }, 60_000);

  it('a forged answer row gives no more than the card: refused by the holder, and the request still waits', async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    const owner = (
      openDatabaseOf(dir).prepare('SELECT owner FROM pending_requests WHERE request_id = ?').get(request.id) as {
        owner: string;
      }
    ).owner;
    const forge = (decision: unknown, origin: string): string => {
      const db = openDatabaseOf(dir);
      const id = `forged-${Math.random()}`;
      db.prepare(
        'INSERT INTO pending_answers (answer_id, request_id, owner, decision, origin, created_at) VALUES (?, ?, ?, ?, ?, 0)',
      ).run(id, request.id, owner, JSON.stringify(decision), origin);
      db.close();
      return id;
    };
    const forged = [
      forge({ action: 'accept', content: FORM }, 'notification'),
      forge({ action: 'accept', content: FORM, sneaky: true }, 'cli'),
      forge({ action: 'allow-chat' }, 'cli'),
    ];
    expect(app.approvals.pending.serverRequests.takeAnswers()).toBe(3);
    expect(forged.map((id) => cli.approvals.pending.serverRequests.relayed(id))).toEqual([
      { applied: false, why: '"notification" is not a place an answer comes from' },
      { applied: false, why: 'the answer is not one a person can give' },
      { applied: false, why: '"Allow for this chat" is given on the card in the app, not from another process' },
    ]);
    expect(app.conversations.serverRequests(chatId)).toHaveLength(1);
    expect(rowsOf(request.id)).toEqual([]);
  }, 60_000);

  it('refuses an answer for a request that is gone, or whose holder has ended', async () => {
    expect(await decide('00000000-0000-4000-8000-000000000000', { action: 'deny' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    // A row held by a process that has ended (its pid no longer runs).
    const ended = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
    const db = openDatabaseOf(dir);
    const view = {
      id: '11111111-1111-4111-8111-111111111111',
      kind: 'elicitation',
      mode: 'form',
      serverName: SERVER,
      chatId: null,
      createdAt: 1,
      message: 'who are you?',
      requestedSchema: { type: 'object', properties: {} },
    };
    db.prepare(
      "INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at, owner) VALUES (NULL, ?, 'elicitation', ?, 1, ?)",
    ).run(view.id, JSON.stringify(view), `${ended}:gone`);
    db.close();
    expect(await decide(view.id, { action: 'decline' })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringContaining('held by an AI Workbench process that has ended') },
    });
  }, 60_000);
});

describe('workbench approvals, as a child process', () => {
  it('lists a form held by the app and accepts it with --field, checked against its schema', async () => {
    const { chatId, request } = await asks('trigger-elicitation-request');
    cli.close();
    const home = dir;
    const listed = await runCli(['approvals', 'list'], { home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${request.id}\\s+form\\s+`));
    expect(listed.stdout).toContain('allow --field NAME=VALUE (name*, check');

    const bad = await runCli(['approvals', 'allow', request.id.slice(0, 8), '--field', 'email=nope'], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/The answer does not fit the form: .*required/);
    const unknown = await runCli(['approvals', 'allow', request.id, '--field', 'age=9'], { home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("The form has no field 'age'; its fields: name, check");

    const accepted = await runCli(
      ['approvals', 'allow', request.id.slice(0, 8), '--field', 'name=Ada Lovelace', '--field', 'check=yes'],
      { home },
    );
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      `Accepted: the form ${SERVER} (${request.id.slice(0, 12)}); applied where it waits.`,
    );
    await app.conversations.settled(chatId);
    expect(resultText(chatId)).toContain('Name: Ada Lovelace');
    expect(rowsOf(request.id)).toEqual([
      { decision: 'allow_once', actor: 'user', decidedBy: 'the person: accept from the CLI' },
    ]);
    const again = await runCli(['approvals', 'deny', request.id], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`'${request.id}' was already decided: Accepted.`);
    cli = createServices({ dataDir: dir, host: 'cli', version: '0.0.0', managedPolicyFile: null });
  }, 120_000);
});

function openDatabaseOf(folder: string) {
  return openDatabase(path.join(folder, DATABASE_FILE_NAME));
}
