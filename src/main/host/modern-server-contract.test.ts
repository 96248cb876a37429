// A 2026-07-28 server and a 2025-11-25 server side by side in one chat (docs/dev/protocol-2026.md), through the
// dispatcher and the real services (SQLite, real MCP over HTTP, the fake LLM server): each speaks its own revision and
// the person sees which; a call to the 2026-07-28 server waits for approval like any other, a deny rule keeps it from
// the server, and a call that needed input is sent again only through the door (a deny rule that came meanwhile
// stops the further leg).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PendingApproval } from '../../shared/approval';
import type { AuditEntry } from '../../shared/audit';
import type { Envelope } from '../../shared/errors';
import type { ChatMessage, ToolCallRecord } from '../../shared/messages';
import type { McpServerView } from '../../shared/mcp';
import type { ServerRequestView } from '../../shared/server-request-views';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../llm/testing/fake-llm-server';
import { startStreamableHttpServer, type TestHttpServer } from '../mcp/test-fixtures/http-servers';
import { startModernServer, type ModernFixture } from '../mcp/test-fixtures/modern-server';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

const MODERN = 'Modern';
const LEGACY = 'Legacy';

let llm: FakeLlmServer;
let turns: FakeTurn[];
beforeAll(async () => {
  llm = await startFakeLlmServer({ respond: () => turns.shift() ?? { kind: 'reply', text: ['Done.'] } });
});
afterAll(() => llm.close());

let dir: string;
let services: Services;
let dispatch: Dispatch;
let modern: ModernFixture;
let legacy: TestHttpServer;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-modern-contract-'));
  modern = await startModernServer();
  legacy = await startStreamableHttpServer();
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(services), onInternalError);
  turns = [];
  services.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llm.baseURL('openai') });
  services.providers.update({ id: 'fake', defaultModel: 'fake-large' });
  await ok('mcp.add', { name: MODERN, server: { url: modern.url, type: 'http' } });
  await ok('mcp.add', { name: LEGACY, server: { url: legacy.url, type: 'http' } });
  services.mcp.start();
  await until(
    () => [MODERN, LEGACY].every((name) => services.mcp.tools(name).length > 0),
    'both servers are ready with their tools',
  );
}, 60_000);
afterEach(async () => {
  await services.conversations.dispose();
  await services.mcp.stop();
  services.close();
  await modern.close();
  await legacy.close();
  fs.rmSync(dir, { recursive: true, force: true });
  expect(onInternalError).not.toHaveBeenCalled();
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function ok<T>(method: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}

/** The model calls `tool` of `server` with `args`; the exchange runs until it settles (or waits). */
async function modelCalls(chatId: string, server: string, tool: string, args: Record<string, unknown>) {
  const providerName = services.mcp.tools(server).find((item) => item.name === tool)?.providerName as string;
  turns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: [JSON.stringify(args)] }] });
  await ok('chat.send', { chatId, message: { role: 'user', text: `call ${tool}` } });
  return services.conversations.settled(chatId);
}

async function calls(chatId: string): Promise<ToolCallRecord[]> {
  const { messages } = await ok<{ messages: ChatMessage[] }>('chat.messages', { chatId, limit: 200 });
  return messages.flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
}

async function approveWaiting(chatId: string): Promise<void> {
  const { approvals } = await ok<{ approvals: PendingApproval[] }>('approvals.pending', { chatId });
  expect(approvals).toHaveLength(1);
  await ok('chat.send', {
    chatId,
    message: {
      role: 'approval',
      toolCallApprovals: [{ toolCallId: approvals[0]?.request.toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }],
    },
  });
  await services.conversations.settled(chatId);
}

const toolCallsAtModern = (): number => modern.methods.filter((method) => method === 'tools/call').length;

describe('a 2026-07-28 server beside a 2025-11-25 server in one chat', () => {
  it('each speaks its own revision, shown on the server', async () => {
    const { servers } = await ok<{ servers: McpServerView[] }>('mcp.list');
    const revision = (name: string) => servers.find((server) => server.name === name)?.status.protocolVersion;
    expect(revision(MODERN)).toBe('2026-07-28');
    expect(revision(LEGACY)).toBe('2025-11-25');
    // The 2026-07-28 server answered server/discover; the 1.x initialize sent beside that first probe (one at most)
    // opened a session that was ended unused (src/main/mcp/http-probe.test.ts).
    expect(modern.methods).toContain('server/discover');
    expect(modern.methods.filter((method) => method === 'initialize').length).toBeLessThanOrEqual(1);
  });

  it("the 2026-07-28 server's call waits for approval and runs only once allowed; the 2025 server's call beside it", async () => {
    const chatId = (await ok<{ id: string }>('chat.create', { providerId: 'fake', model: 'fake-large' })).id;
    expect(await modelCalls(chatId, MODERN, 'echo', { text: 'hi' })).toMatchObject({ status: 'waiting-approval' });
    expect(toolCallsAtModern()).toBe(0);
    await approveWaiting(chatId);
    expect(toolCallsAtModern()).toBe(1);

    expect(await modelCalls(chatId, LEGACY, 'shout', { text: 'hi' })).toMatchObject({ status: 'waiting-approval' });
    await approveWaiting(chatId);
    expect((await calls(chatId)).map((call) => [call.status, JSON.stringify(call.result)])).toEqual([
      ['success', expect.stringContaining('"hi"')],
      ['success', expect.stringContaining('"HI"')],
    ]);
  });

  it('a deny rule keeps the call from the 2026-07-28 server, and the audit log names the rule', async () => {
    await ok('policy.update', { rules: { add: [{ id: 'no-echo', effect: 'deny', server: MODERN, tool: 'echo' }] } });
    const chatId = (await ok<{ id: string }>('chat.create', { providerId: 'fake', model: 'fake-large' })).id;
    expect(await modelCalls(chatId, MODERN, 'echo', { text: 'hi' })).toMatchObject({ status: 'idle' });
    expect(toolCallsAtModern()).toBe(0);
    expect(await calls(chatId)).toMatchObject([{ status: 'denied' }]);
    const { entries } = await ok<{ entries: AuditEntry[] }>('audit.query', { chatId, limit: 10 });
    expect(entries.map((entry) => [entry.decision, entry.actor])).toContainEqual(['auto_deny', 'policy']);
  });

  it('a call that needed input is sent again through the door: a deny rule set while the person answered stops it', async () => {
    await ok('policy.update', { tools: { [MODERN]: { confirm: 'auto-approve' } } });
    const chatId = (await ok<{ id: string }>('chat.create', { providerId: 'fake', model: 'fake-large' })).id;
    const providerName = services.mcp.tools(MODERN).find((item) => item.name === 'confirm')?.providerName as string;
    turns.push({ kind: 'reply', toolCalls: [{ name: providerName, argumentChunks: ['{}'] }] });
    await ok('chat.send', { chatId, message: { role: 'user', text: 'confirm' } });
    let request: ServerRequestView | undefined;
    await until(() => (request = services.conversations.serverRequests(chatId)[0]) !== undefined, 'the form waits');
    // The first leg reached the server; it answered input_required (an elicitation).
    expect(toolCallsAtModern()).toBe(1);
    await ok('policy.update', {
      rules: { add: [{ id: 'no-confirm', effect: 'deny', server: MODERN, tool: 'confirm' }] },
    });
    await ok('serverRequests.decide', {
      id: request?.id,
      decision: { action: 'accept', content: { confirm: true } },
    });
    await services.conversations.settled(chatId);
    // The further leg with the person's answer was never sent.
    expect(toolCallsAtModern()).toBe(1);
    expect(await calls(chatId)).toMatchObject([{ error: expect.stringMatching(/no-confirm|Denied by your rule/) }]);
  });
});
