/**
 * What an MCP Apps view asks, through the real composition (docs/user/mcp-apps.md#what-a-view-may-ask): the published
 * example app server (@modelcontextprotocol/server-basic-vanillajs) and the hostile test server run for real over
 * stdio; the gate, the one pending store, the door and the audit log are the app's own. Only which tool call's view
 * asks is given here (in the app it is the chat's stored call with a view).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit';
import type { AppToolCallView } from '../../shared/server-request-views';
import { createServices, type Services } from '../services';
import { APP_REQUESTS_IN_FLIGHT, createAppCalls, type AppCalls } from './app-calls';

const BASIC = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js', import.meta.url),
);
const HOSTILE = fileURLToPath(new URL('./test-fixtures/hostile-app-server.ts', import.meta.url));
const CLOCK_VIEW = 'ui://get-time/mcp-app.html';

let dir: string;
let services: Services;
let chatId: string;
let calls: AppCalls;
/** The view that asks: the Clock's, unless a test makes it the Hostile server's. */
let origin = { serverName: 'Clock', viewUri: CLOCK_VIEW };

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ready = (server: string, tool: string): Promise<unknown> =>
  until(
    () => services.mcp.tools(server).find((item) => item.name === tool && item.available) ?? undefined,
    `${server}.${tool}`,
  );

/** What waits for the person from a view in this chat. */
const waiting = (): AppToolCallView[] =>
  services.approvals.pending.serverRequests
    .appCalls(chatId)
    .filter((request): request is AppToolCallView => request.kind === 'app-tool-call');

const firstWaiting = (): Promise<AppToolCallView> => until(() => waiting()[0], 'a waiting app call');

/** The rows of the calls a view asked for, oldest first. */
const appRows = (): AuditEntry[] =>
  services.audit
    .query({ limit: 500 })
    .entries.filter((entry) => entry.toolCallId.startsWith('app:'))
    .sort((a, b) => a.sequence - b.sequence);

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-app-calls-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', managedPolicyFile: null });
  services.mcpServers.add('Clock', { command: process.execPath, args: [BASIC, '--stdio'] });
  services.mcpServers.add('Hostile', { command: process.execPath, args: [HOSTILE] });
  services.mcp.start();
  chatId = services.chats.create({}).id;
  origin = { serverName: 'Clock', viewUri: CLOCK_VIEW };
  calls = createAppCalls({
    decide: (chat, call, tool) => services.approvals.gate.decideForApp(chat, call, tool),
    waits: services.approvals.pending.serverRequests,
    audit: services.audit,
    viewCall: () => origin,
    mcp: services.mcp,
  });
  await ready('Clock', 'get-time');
  await ready('Hostile', 'show');
}, 60_000);

afterEach(async () => {
  calls.dispose();
  await services.mcp.stop();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ask = (tool = 'get-time', args: unknown = {}): Promise<unknown> =>
  calls.callTool({ chatId, viewCallId: 'call_view', tool, arguments: args });

describe("a view's tool call", () => {
  it('waits as a server request until the person allows it once; then it runs, and both rows name the app', async () => {
    const result = ask();
    const view = await firstWaiting();
    expect(view).toMatchObject({
      kind: 'app-tool-call',
      serverName: 'Clock',
      toolName: 'get-time',
      viewUri: CLOCK_VIEW,
    });
    expect(view.id).toMatch(/^app:/);
    expect(view.expiresAt).toBeGreaterThan(view.createdAt);
    expect(calls.holds(view.id)).toBe(true);
    expect(calls.decide(view.id, { action: 'allow-once' })).toEqual({ request: null });
    await expect(result).resolves.toMatchObject({ isError: false });
    expect(waiting()).toEqual([]);
    const rows = appRows();
    expect(rows.map((row) => [row.kind, row.decision, row.actor])).toEqual([
      ['decision', 'allow_once', 'user'],
      ['result', null, null],
    ]);
    expect(rows[0]?.decidedBy).toBe(
      `allowed by you (requested by the app of Clock (view ${CLOCK_VIEW}), not by the model)`,
    );
    // A second answer is refused by name, and records nothing.
    expect(() => calls.decide(view.id, { action: 'deny' })).toThrow(/Nothing waits by that id/);
    expect(appRows()).toHaveLength(2);
  }, 60_000);

  it('denied: the view hears the refusal and nothing ran', async () => {
    const result = ask();
    const view = await firstWaiting();
    calls.decide(view.id, { action: 'deny', reason: 'not now' });
    await expect(result).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringMatching(/You denied it: not now/),
    });
    const rows = appRows();
    expect(rows.map((row) => [row.kind, row.decision, row.actor, row.reason])).toEqual([
      ['decision', 'deny', 'user', 'not now'],
    ]);
  }, 60_000);

  it('takes only allow-once, allow-chat or deny', async () => {
    const result = ask();
    const view = await firstWaiting();
    expect(() => calls.decide(view.id, { action: 'accept' })).toThrow(/allow-once, allow-chat or deny/);
    calls.decide(view.id, { action: 'deny' });
    await expect(result).rejects.toMatchObject({ code: 'refused' });
  }, 60_000);

  it('"Allow for this chat" lets the app call the tool again without asking, never the model, until revoked', async () => {
    const first = ask();
    calls.decide((await firstWaiting()).id, { action: 'allow-chat' });
    await expect(first).resolves.toMatchObject({ isError: false });
    const grants = services.approvals.chats.grants(chatId);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ serverName: 'Clock', toolName: 'app:get-time' });
    // The app's next call: allowed by the grant, no card.
    await expect(ask()).resolves.toMatchObject({ isError: false });
    expect(appRows().map((row) => [row.kind, row.decision, row.actor])).toEqual([
      ['decision', 'allow_session', 'user'],
      ['result', null, null],
      ['decision', 'session_grant', 'policy'],
      ['result', null, null],
    ]);
    // The model's call of the same tool in the same chat still asks.
    const tool = services.mcp.tools('Clock').find((item) => item.name === 'get-time');
    expect(
      services.approvals.gate.decide(chatId, { serverName: 'Clock', toolName: 'get-time', args: {} }, tool),
    ).toMatchObject({ outcome: 'ask' });
    // Revoked like any chat grant: the app's call asks again.
    services.approvals.chats.revoke(chatId, 'Clock', 'app:get-time');
    const again = ask();
    calls.decide((await firstWaiting()).id, { action: 'deny' });
    await expect(again).rejects.toMatchObject({ code: 'refused' });
  }, 60_000);

  it('a deny rule added while it waited still stops it at the door, after the person allowed it', async () => {
    const result = ask();
    const view = await firstWaiting();
    services.approvals.policy.update({
      rules: { add: [{ id: 'no-clock', effect: 'deny', server: 'Clock', tool: 'get-time' }] },
    });
    calls.decide(view.id, { action: 'allow-once' });
    await expect(result).rejects.toMatchObject({ code: 'refused' });
    const rows = appRows();
    expect(rows.filter((row) => row.kind === 'result')).toEqual([]);
    expect(rows.at(-1)).toMatchObject({ decision: 'auto_deny', actor: 'policy' });
    // With the rule in force, the next call is refused before it waits.
    await expect(ask()).rejects.toMatchObject({ code: 'refused' });
    expect(waiting()).toEqual([]);
  }, 60_000);

  it('an allow rule runs it without asking; the row says the policy decided and the app asked', async () => {
    services.approvals.policy.update({
      rules: { add: [{ id: 'clock-ok', effect: 'allow', server: 'Clock', tool: 'get-time' }] },
    });
    await expect(ask()).resolves.toMatchObject({ isError: false });
    const [decision] = appRows();
    expect(decision).toMatchObject({ decision: 'auto_allow', actor: 'policy' });
    expect(decision?.decidedBy).toContain('requested by the app of Clock');
  }, 60_000);

  it("refuses, and records, what no one may allow: another server's tool, a model-only tool, a flood", async () => {
    origin = { serverName: 'Hostile', viewUri: 'ui://hostile/view' };
    await expect(ask('get-time')).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringMatching(/may call only that server's tools/),
    });
    await expect(ask('model-only')).rejects.toMatchObject({ message: expect.stringMatching(/for the model only/) });
    await expect(ask('show', [1, 2])).rejects.toMatchObject({ message: expect.stringMatching(/not a JSON object/) });
    const flood = Array.from({ length: APP_REQUESTS_IN_FLIGHT + 3 }, () => ask('show'));
    const settled = Promise.allSettled(flood);
    await until(() => (waiting().length === APP_REQUESTS_IN_FLIGHT ? true : undefined), 'eight waiting');
    for (const view of waiting()) calls.decide(view.id, { action: 'deny' });
    const outcomes = await settled;
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    const refused = appRows().filter((row) => row.decision === 'auto_deny');
    expect(refused.map((row) => row.toolName).sort()).toEqual([
      'get-time',
      'model-only',
      'show',
      'show',
      'show',
      'show',
    ]);
    for (const row of refused)
      expect(row).toMatchObject({
        serverName: 'Hostile',
        actor: 'system',
        decidedBy: expect.stringContaining('requested by the app of Hostile'),
      });
    expect(appRows().filter((row) => row.kind === 'result')).toEqual([]);
  }, 60_000);

  it('a link: only http(s), refused and recorded otherwise; a refusal in the frame is recorded too', () => {
    expect(calls.openLink({ chatId, viewCallId: 'call_view', url: 'https://example.com/a' })).toEqual({
      url: 'https://example.com/a',
      host: 'example.com',
    });
    expect(() => calls.openLink({ chatId, viewCallId: 'call_view', url: 'javascript:alert(1)' })).toThrow(
      /only http and https/,
    );
    calls.recordRefusal({
      chatId,
      viewCallId: 'call_view',
      what: 'ui/open-link',
      detail: 'you did not open https://example.com/a',
    });
    const rows = appRows();
    expect(rows.map((row) => [row.toolName, row.decision, row.actor])).toEqual([
      ['ui/open-link', 'auto_deny', 'system'],
      ['ui/open-link', 'auto_deny', 'system'],
    ]);
    expect(rows[1]?.decidedBy).toContain("refused in the view's frame");
  });

  it("reads a resource of the view's own server only: another server's URI is asked of its own server", async () => {
    await expect(calls.readResource({ chatId, viewCallId: 'call_view', uri: CLOCK_VIEW })).resolves.toMatchObject({
      contents: [expect.objectContaining({ uri: CLOCK_VIEW })],
    });
    origin = { serverName: 'Hostile', viewUri: 'ui://hostile/view' };
    // The Hostile server has no such resource; the Clock is never asked.
    await expect(calls.readResource({ chatId, viewCallId: 'call_view', uri: CLOCK_VIEW })).rejects.toThrow();
    await expect(calls.readResource({ chatId, viewCallId: 'call_view', uri: '' })).rejects.toMatchObject({
      code: 'refused',
    });
    expect(appRows().map((row) => [row.serverName, row.toolName, row.decision])).toEqual([
      ['Hostile', 'resources/read', 'auto_deny'],
    ]);
  }, 60_000);

  it('what waits when the app stops is cancelled, recorded, and does not run', async () => {
    const result = ask();
    await firstWaiting();
    calls.dispose();
    await expect(result).rejects.toMatchObject({ message: expect.stringMatching(/app stopped/) });
    expect(appRows().map((row) => [row.decision, row.actor])).toEqual([['cancelled', 'system']]);
    expect(waiting()).toEqual([]);
  }, 60_000);
});

describe('a view bound to the server it was shown for', () => {
  it('refuses and records every request once its name means another server; the view is told it is stale', async () => {
    const identityOf = (name: string): string | undefined => services.mcpServers.facts().get(name)?.identity.key;
    const shownFor = identityOf('Clock');
    expect(shownFor).toBeDefined();
    const bound = createAppCalls({
      decide: (chat, call, tool) => services.approvals.gate.decideForApp(chat, call, tool),
      waits: services.approvals.pending.serverRequests,
      audit: services.audit,
      viewCall: () => ({ ...origin, identity: shownFor }),
      identityOf,
      mcp: services.mcp,
    });
    try {
      const view = { chatId, viewCallId: 'call_view' };
      // While "Clock" runs what the view was shown for, its calls are decided as usual.
      const first = bound.callTool({ ...view, tool: 'get-time', arguments: {} });
      const waited = await firstWaiting();
      bound.decide(waited.id, { action: 'deny' });
      await expect(first).rejects.toMatchObject({ code: 'refused' });

      // The same published example, run from another working folder: another server under the same name.
      services.mcpServers.remove('Clock');
      services.mcpServers.add('Clock', { command: process.execPath, args: [BASIC, '--stdio'], cwd: dir });
      expect(identityOf('Clock')).not.toBe(shownFor);
      await ready('Clock', 'get-time');
      const before = appRows().length;

      const stale = { code: 'refused', details: { stale: true } };
      await expect(bound.callTool({ ...view, tool: 'get-time', arguments: {} })).rejects.toMatchObject(stale);
      await expect(bound.readResource({ ...view, uri: CLOCK_VIEW })).rejects.toMatchObject(stale);
      expect(() => bound.openLink({ ...view, url: 'https://example.com/' })).toThrow(/Stale view: "Clock" now runs/);
      // Nothing waited for the person, nothing ran, and each refusal is a row that says why.
      expect(waiting()).toEqual([]);
      const rows = appRows().slice(before);
      expect(rows.map((row) => [row.toolName, row.decision, row.actor])).toEqual([
        ['get-time', 'auto_deny', 'system'],
        ['resources/read', 'auto_deny', 'system'],
        ['ui/open-link', 'auto_deny', 'system'],
      ]);
      for (const row of rows)
        expect(row.decidedBy).toMatch(/^stale view: "Clock" now runs another server than the one it was shown for/);

      // Removed altogether, the view is still stale.
      services.mcpServers.remove('Clock');
      await expect(bound.callTool({ ...view, tool: 'get-time', arguments: {} })).rejects.toThrow(
        /no server is named "Clock" any more/,
      );
    } finally {
      bound.dispose();
    }
  }, 90_000);
});
