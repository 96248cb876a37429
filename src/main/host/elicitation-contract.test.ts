// Elicitation, end to end: server-everything's `trigger-elicitation-request` and `trigger-url-elicitation` as a real
// child process (form mode, URL mode, and the -32042 URL-elicitation-required error path), answered through the
// contract (docs/user/server-requests.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { McpToolResult } from '../../shared/mcp-result';
import type { ChatMessage } from '../../shared/messages';
import type { ServerRequestsChange, ServerRequestView } from '../../shared/server-request-views';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const SERVER = 'Everything';

let llm: FakeLlmServer;
let chatTurns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({ respond: () => chatTurns.shift() ?? { kind: 'reply', text: ['Done.'] } });
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
  chatTurns = [];
  services.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  services.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  services.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything' });
  services.approvals.policy.update({
    tools: { [SERVER]: { 'trigger-elicitation-request': 'auto-approve', 'trigger-url-elicitation': 'auto-approve' } },
  });
  services.mcp.start();
  await until(
    () => services.mcp.tools(SERVER).some((tool) => tool.name === 'trigger-url-elicitation'),
    'server-everything offers trigger-url-elicitation',
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

/** The model calls `tool` with `args`; the exchange starts. */
async function callTool(chatId: string, tool: string, args: Record<string, unknown>): Promise<void> {
  const providerName = services.mcp.tools(SERVER).find((item) => item.name === tool)?.providerName as string;
  chatTurns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify(args)] }] });
  expect(await dispatch('chat.send', { chatId, message: { role: 'user', text: `call ${tool}` } })).toMatchObject({
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

/** The result of the chat's last tool call. */
function lastResult(chatId: string): McpToolResult | undefined {
  const messages = services.conversations.messages(chatId).messages as ChatMessage[];
  const calls = messages.flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
  return calls.at(-1)?.result;
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

function elicitationRows(): AuditEntry[] {
  return services.audit.query({ kind: 'elicitation' }).entries.reverse();
}

const VALID = {
  name: 'Ada Lovelace',
  check: true,
  email: 'ada@example.com',
  homepage: 'https://example.com/ada',
  birthdate: '1815-12-10',
  integer: 7,
  number: 2.5,
  untitledSingleSelectEnum: 'Joey',
  untitledMultipleSelectEnum: ['Piano'],
  titledSingleSelectEnum: 'hero-2',
  titledMultipleSelectEnum: ['fish-1'],
  legacyTitledEnum: 'pet-2',
};

describe('elicitation (server-everything)', () => {
  it('form: shown with its schema, checked with ajv before it is sent; Accept sends the content', async () => {
    const chatId = chatOnFake();
    await callTool(chatId, 'trigger-elicitation-request', {});
    const request = await waiting();
    expect(request).toMatchObject({
      kind: 'elicitation',
      mode: 'form',
      serverName: SERVER,
      chatId,
      message: 'Please provide inputs for the following fields:',
    });
    const schema = (request as Extract<ServerRequestView, { mode: 'form' }>).requestedSchema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(schema.required).toEqual(['name']);
    expect(Object.keys(schema.properties)).toContain('email');

    const bad = await dispatch('serverRequests.decide', {
      id: request.id,
      decision: { action: 'accept', content: { ...VALID, email: 'not an email', integer: 500 } },
    });
    expect(bad).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        message:
          'The answer does not fit the form: String with email format must be an email address, like ' +
          'name@example.com; Integer must be 100 or less.',
        // Field by field, for the card to put each beside its field (docs/user/server-requests.md).
        details: {
          problems: [
            { field: 'email', message: 'String with email format must be an email address, like name@example.com' },
            { field: 'integer', message: 'Integer must be 100 or less' },
          ],
        },
      },
    });
    const missing = await dispatch('serverRequests.decide', {
      id: request.id,
      decision: { action: 'accept', content: { check: true } },
    });
    expect(missing).toMatchObject({
      ok: false,
      error: { message: 'The answer does not fit the form: String is required.' },
    });
    // Still waiting: a refused answer changes nothing and writes no row.
    expect(services.conversations.serverRequests(chatId)).toHaveLength(1);
    expect(elicitationRows()).toEqual([]);

    expect(
      await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'accept', content: VALID } }),
    ).toMatchObject({ ok: true });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User provided the requested information');
    expect(toolResultText(chatId)).toContain('Name: Ada Lovelace');
    expect(elicitationRows()).toMatchObject([
      {
        toolName: 'elicitation/create',
        decision: 'allow_once',
        actor: 'user',
        editedArgs: { name: 'Ada Lovelace', email: 'ada@example.com' },
      },
    ]);
  }, 60_000);

  it('form: Decline and Cancel go back as the spec names them', async () => {
    const chatId = chatOnFake();
    await callTool(chatId, 'trigger-elicitation-request', {});
    await dispatch('serverRequests.decide', { id: (await waiting()).id, decision: { action: 'decline' } });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User declined');
    await callTool(chatId, 'trigger-elicitation-request', {});
    await dispatch('serverRequests.decide', { id: (await waiting()).id, decision: { action: 'cancel' } });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User cancelled');
    expect(elicitationRows().map((row) => row.decision)).toEqual(['deny', 'cancelled']);
  }, 60_000);

  it('a deny rule on the server declines an elicitation unseen', async () => {
    services.approvals.policy.update({
      rules: { add: [{ id: 'no-forms', effect: 'deny', server: SERVER, tool: 'elicitation' }] },
    });
    const chatId = chatOnFake();
    await callTool(chatId, 'trigger-elicitation-request', {});
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User declined');
    expect(changes).toEqual([]);
    expect(elicitationRows()).toMatchObject([{ decision: 'auto_deny', actor: 'policy' }]);
  }, 60_000);

  it('URL: the full URL is shown and nothing is opened by the main process; Accept means the person confirmed', async () => {
    const chatId = chatOnFake();
    const url = 'https://auth.example.com/authorize?client_id=abc&state=xyz#frag';
    await callTool(chatId, 'trigger-url-elicitation', { url, message: 'Sign in to Example' });
    const request = await waiting();
    expect(request).toMatchObject({ kind: 'elicitation', mode: 'url', url, message: 'Sign in to Example', chatId });
    expect(
      await dispatch('serverRequests.decide', { id: request.id, decision: { action: 'accept', content: { x: 'y' } } }),
    ).toMatchObject({ ok: true });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User completed the URL elicitation flow');
    expect(elicitationRows()).toMatchObject([{ decision: 'allow_once', args: { url } }]);
  }, 60_000);

  it('-32042 (URL elicitation required): the page named in the error is asked first, then the call is retried once', async () => {
    const chatId = chatOnFake();
    const url = 'https://example.com/needs-consent';
    await callTool(chatId, 'trigger-url-elicitation', { url, errorPath: true });
    const prerequisite = await waiting();
    expect(prerequisite).toMatchObject({ mode: 'url', url: 'https://modelcontextprotocol.io', chatId });
    await dispatch('serverRequests.decide', { id: prerequisite.id, decision: { action: 'accept' } });
    const retried = await waiting((view) => view.id !== prerequisite.id);
    expect(retried).toMatchObject({ mode: 'url', url });
    await dispatch('serverRequests.decide', { id: retried.id, decision: { action: 'accept' } });
    await services.conversations.settled(chatId);
    expect(toolResultText(chatId)).toContain('User completed the URL elicitation flow');

    // Declined: the call is not retried; it ends with our words, then the server's own, and says which page.
    await callTool(chatId, 'trigger-url-elicitation', { url: 'https://example.com/other', errorPath: true });
    const again = await waiting();
    await dispatch('serverRequests.decide', { id: again.id, decision: { action: 'decline' } });
    await services.conversations.settled(chatId);
    const declined = lastResult(chatId);
    expect(declined).toMatchObject({
      isError: true,
      pageDeclined: { url: 'https://modelcontextprotocol.io', action: 'decline' },
      protocolError: { code: -32042, message: 'This request requires browser-based authorization.' },
    });
    expect(declined?.forModel.text).toBe(
      'Not run: Everything needs a page opened first (https://modelcontextprotocol.io), and the person declined it. ' +
        'The server said: This request requires browser-based authorization.',
    );
    expect(elicitationRows().map((row) => [row.args, row.decision])).toEqual([
      [{ message: expect.any(String), url: 'https://modelcontextprotocol.io' }, 'allow_once'],
      [{ message: expect.any(String), url }, 'allow_once'],
      [{ message: expect.any(String), url: 'https://modelcontextprotocol.io' }, 'deny'],
    ]);
  }, 60_000);

  it("-32042: a deny rule added while the page card waits stops the retried call at the server's door, and the audit names the rule", async () => {
    const chatId = chatOnFake();
    const url = 'https://example.com/needs-consent';
    await callTool(chatId, 'trigger-url-elicitation', { url, errorPath: true });
    const prerequisite = await waiting();
    // Another window (or the CLI) adds a deny rule while the card waits.
    services.approvals.policy.update({
      rules: {
        add: [
          {
            id: 'no-consent-pages',
            effect: 'deny',
            server: SERVER,
            tool: 'trigger-url-elicitation',
            args: [{ pointer: '/url', match: 'glob', value: 'https://example.com/**' }],
          },
        ],
      },
    });
    await dispatch('serverRequests.decide', { id: prerequisite.id, decision: { action: 'accept' } });
    const record = (): { status: string; error?: string } | undefined => {
      for (const message of services.conversations.messages(chatId).messages as ChatMessage[]) {
        if (message.role === 'assistant')
          for (const turn of message.reply.turns) for (const call of turn.toolCalls ?? []) return call;
      }
      return undefined;
    };
    // The retried call reaching the server would show as the server's own page request (its second elicitation).
    await until(
      () => services.conversations.serverRequests().length > 0 || record()?.status === 'denied',
      'the retried call is stopped or reaches the server',
    );
    expect(services.conversations.serverRequests()).toEqual([]);
    await services.conversations.settled(chatId);
    expect(record()).toMatchObject({ status: 'denied', error: expect.stringContaining('Denied by your rule #1') });
    const decisions = services.audit.query({ kind: 'decision', toolName: 'trigger-url-elicitation' }).entries.reverse();
    expect(decisions.map((row) => [row.decision, row.actor])).toEqual([
      ['auto_allow', 'policy'],
      ['auto_deny', 'policy'],
    ]);
    expect(decisions[1]?.decidedBy).toMatch(/^Denied by your rule #1: .*\(checked when the call was about to run\)$/);
    expect(services.audit.query({ kind: 'result', toolName: 'trigger-url-elicitation' }).entries).toEqual([]);
  }, 60_000);

  it('URL: a page that is not an http(s) address is declined unseen, and the audit says why', async () => {
    const chatId = chatOnFake();
    for (const url of [
      'javascript:alert(document.cookie)',
      'file:///etc/passwd',
      'vscode://evil/cmd',
      'data:text/html,<script>1</script>',
    ]) {
      await callTool(chatId, 'trigger-url-elicitation', { url, message: 'Open me' });
      await services.conversations.settled(chatId);
      expect(services.conversations.serverRequests()).toEqual([]);
    }
    expect(elicitationRows().map((row) => [row.args, row.decision, row.actor, row.decidedBy])).toEqual(
      [
        'javascript:alert(document.cookie)',
        'file:///etc/passwd',
        'vscode://evil/cmd',
        'data:text/html,<script>1</script>',
      ].map((url) => [
        { message: 'Open me', url },
        'auto_deny',
        'policy',
        'the page is not an http(s) address, so it is not offered',
      ]),
    );
  }, 60_000);
});
