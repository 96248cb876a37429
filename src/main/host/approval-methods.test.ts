import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatGrant, DecisionSourceKind, PolicyExplanation, PolicyView } from '../../shared/approval';
import type { Chat } from '../../shared/chat';
import type { EventName } from '../../shared/contract';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import { makeTool, recordingAuditLog } from '../approval/testing/fixtures';
import { createServices, type Services, type ServicesOptions } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

const readFile = makeTool('Files', 'read_file', { annotations: { readOnlyHint: true } });
const writeFile = makeTool('Files', 'write_file');
const TOOLS = [
  readFile,
  writeFile,
  makeTool('Shell', 'run'),
  makeTool('Web', 'fetch'),
  makeTool('Notes', 'list'),
  makeTool('Notes', 'add'),
];
const UNKNOWN_CHAT = '00000000-0000-4000-8000-000000000000';

let dir: string;
let services: Services;
let dispatch: Dispatch;
let emitted: { event: EventName; payload: unknown }[];
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

function start(options: Partial<ServicesOptions> = {}): void {
  services = createServices({
    dataDir: path.join(dir, 'data'),
    host: 'browser',
    version: '0',
    managedPolicyFile: null,
    audit: recordingAuditLog(),
    tools: {
      find: (server, tool) => TOOLS.find((candidate) => candidate.serverName === server && candidate.name === tool),
    },
    ...options,
  });
  emitted = [];
  services.events.subscribe((event, payload) => emitted.push({ event, payload }));
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(services), onInternalError);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-approval-methods-'));
  start();
});
afterEach(() => {
  services.close();
  expect(onInternalError).not.toHaveBeenCalled();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function ok<T>(method: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}
async function failure(method: string, input?: unknown): Promise<WorkbenchErrorData> {
  const envelope = await dispatch(method, input);
  if (envelope.ok) throw new Error(`${method} answered ${JSON.stringify(envelope.value)}`);
  return envelope.error;
}

/** Lets a call wait in the chat and answers it with "Allow for this chat". */
function grantThroughApproval(chatId: string, tool: typeof readFile, toolCallId: string): void {
  const result = services.approvals.gate.evaluate(
    { chatId },
    { toolCallId, serverName: tool.serverName, toolName: tool.name, args: {} },
    tool,
  );
  if (result.outcome !== 'ask') throw new Error('expected ask');
  services.approvals.pending.add(chatId, undefined, [result.request]);
  services.approvals.pending.submit(chatId, [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }]);
}

describe('policy.get and policy.update', () => {
  it('refuse a change when the settings file was broken by hand, in a sentence that names the file, not the method', async () => {
    fs.writeFileSync(path.join(dir, 'data', 'settings.json'), '{ "approvals": ', 'utf8');
    const refused = await failure('policy.update', { mode: 'never-ask' });
    expect(refused.code).toBe('unavailable');
    expect(refused.message).toMatch(/^The settings file .*settings\.json is not valid JSON/);
    expect(refused.message).not.toMatch(/policy\.update/);
  });

  it('answer the defaults, then partial changes, announced as policy.onDidChange', async () => {
    expect(await ok<PolicyView>('policy.get')).toEqual({
      policy: { mode: 'ask', timeoutSeconds: 300, servers: {}, tools: {}, rules: [] },
      managed: null,
      warnings: [],
    });
    const view = await ok<PolicyView>('policy.update', {
      mode: 'never-ask',
      rules: {
        add: [
          {
            id: 'no-etc',
            effect: 'deny',
            server: 'Files',
            tool: 'write_*',
            args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
          },
        ],
      },
    });
    expect(view.policy.mode).toBe('never-ask');
    expect(view.warnings.map((warning) => warning.kind)).toEqual(['approvals-off']);
    expect(emitted).toEqual([{ event: 'policy.onDidChange', payload: view }]);
    expect(await ok<PolicyView>('policy.get')).toEqual(view);
  });

  it('refuse a bad rule with the reason and the rule, and a malformed change before it reaches the service', async () => {
    const bad = await failure('policy.update', {
      rules: {
        add: [
          {
            id: 'r',
            effect: 'deny',
            server: '*',
            tool: '*',
            args: [{ pointer: '/q', match: 'regex', value: '(x+)*' }],
          },
        ],
      },
    });
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).toContain(
      "Rule #1 ('r'), args[0].value: repeats a group that itself repeats or has alternatives ((x+)*)",
    );
    const malformed = await failure('policy.update', { mode: 'sometimes', servers: { Files: { bypass: true } } });
    expect(malformed.message).toMatch(
      /^Invalid input for policy\.update: mode: .*servers\.Files: Unrecognized key: "bypass"/,
    );
    expect(emitted).toEqual([]);
  });

  it("refuse the old trust key, saying that a server's trust is mcpServers.<name>.trusted (mcp.edit)", async () => {
    const old = await failure('policy.update', { servers: { Files: { trustAnnotations: true } } });
    expect(old.code).toBe('invalid_input');
    expect(old.message).toContain(
      "servers.Files.trustAnnotations: a server's trust is no longer an approval setting: it is `mcpServers.<name>.trusted` in settings.json, changed with mcp.edit { name, trusted }",
    );
    expect(emitted).toEqual([]);
  });
});

describe('policy.explain', () => {
  it('answers in plain words for each source of a decision', async () => {
    const policyFile = path.join(dir, 'managed.json');
    fs.writeFileSync(policyFile, JSON.stringify({ rules: [{ id: 'org-no-shell', server: 'Shell', tool: '*' }] }));
    services.close();
    start({ managedPolicyFile: policyFile });
    const chat = await ok<Chat>('chat.create');
    const explain = (input: object) => ok<PolicyExplanation>('policy.explain', input);
    const expectations: [DecisionSourceKind, () => Promise<PolicyExplanation>, string][] = [
      [
        'global-setting',
        () => explain({ server: 'Files', tool: 'write_file' }),
        'Asked: your global setting is to ask before every tool call',
      ],
      [
        'managed-deny-rule',
        () => explain({ server: 'Shell', tool: 'run' }),
        "Denied by your organisation's policy, rule 'org-no-shell': Shell *",
      ],
      [
        'deny-rule',
        async () => {
          await ok('policy.update', {
            rules: {
              add: [
                {
                  id: 'd',
                  effect: 'deny',
                  server: 'Files',
                  tool: 'write_*',
                  args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
                },
              ],
            },
          });
          return explain({ server: 'Files', tool: 'write_file', args: { path: '/etc/passwd' } });
        },
        'Denied by your rule #1: Files write_* when /path matches /etc/**',
      ],
      [
        'ask-rule',
        async () => {
          await ok('policy.update', { rules: { add: [{ id: 'ask-web', effect: 'ask', server: 'Web', tool: '*' }] } });
          return explain({ server: 'Web', tool: 'fetch' });
        },
        'Asked because of your rule #2: Web *',
      ],
      [
        'allow-rule',
        async () => {
          await ok('policy.update', {
            rules: { add: [{ id: 'notes', effect: 'allow', server: 'Notes', tool: 'list' }] },
          });
          return explain({ server: 'Notes', tool: 'list' });
        },
        'Auto-approved by your rule #3: Notes list',
      ],
      [
        'tool-setting',
        async () => {
          await ok('policy.update', { tools: { Notes: { add: 'auto-approve' } } });
          return explain({ server: 'Notes', tool: 'add' });
        },
        "Auto-approved: tool setting 'Notes.add'",
      ],
      [
        'server-setting',
        async () => {
          await ok('policy.update', { servers: { Files: { autoApprove: true } } });
          return explain({ server: 'Files', tool: 'write_file', args: { path: '/home/x' } });
        },
        "Auto-approved: server setting 'Files' (auto-approve all its tools)",
      ],
      [
        'trusted-read-only',
        async () => {
          await ok('policy.update', {
            mode: 'auto-approve-read-only-trusted',
            servers: { Files: { autoApprove: false } },
          });
          await ok('mcp.edit', { name: 'Files', trusted: true });
          return explain({ server: 'Files', tool: 'read_file' });
        },
        "Auto-approved: 'read_file' says it is read-only, and you trust the annotations of 'Files'",
      ],
      [
        'default',
        () => explain({ server: 'Files', tool: 'write_file' }),
        'Asked: no rule or setting allows this tool without asking',
      ],
      [
        'chat-grant',
        async () => {
          grantThroughApproval(chat.id, writeFile, 'g1');
          return explain({ server: 'Files', tool: 'write_file', chatId: chat.id });
        },
        "Allowed for this chat (you chose 'Allow for this chat' at ",
      ],
      [
        'chat-mode',
        async () => {
          await ok('approvals.setChatMode', { chatId: chat.id, mode: 'always-ask' });
          return explain({ server: 'Notes', tool: 'add', chatId: chat.id });
        },
        "Asked because this chat is set to 'Always ask'",
      ],
      [
        'approvals-off',
        async () => {
          await ok('policy.update', { mode: 'never-ask' });
          return explain({ server: 'Web', tool: 'fetch' });
        },
        'Approvals are off (never ask)',
      ],
    ];
    const seen = new Set<DecisionSourceKind>();
    for (const [kind, run, reason] of expectations) {
      const explanation = await run();
      expect(explanation.source.kind, reason).toBe(kind);
      expect(explanation.reason.startsWith(reason), `${explanation.reason} should start with ${reason}`).toBe(true);
      expect(explanation.considered.at(-1)).toMatchObject({ kind, result: 'decided' });
      seen.add(kind);
    }
    expect(seen.size).toBe(12);
  });

  it('names an unknown chat and refuses a call without a server', async () => {
    expect((await failure('policy.explain', { server: 'Files', tool: 'read_file', chatId: UNKNOWN_CHAT })).code).toBe(
      'not_found',
    );
    expect((await failure('policy.explain', { tool: 'read_file' })).message).toContain('server');
  });
});

describe('grants and the chat mode', () => {
  it('lists grants per chat or all, revokes them, and never shows one chat another chat’s grants', async () => {
    const a = await ok<Chat>('chat.create');
    const b = await ok<Chat>('chat.create');
    grantThroughApproval(a.id, writeFile, 'a1');
    grantThroughApproval(b.id, readFile, 'b1');
    const listA = await ok<{ grants: ChatGrant[] }>('grants.list', { chatId: a.id });
    expect(listA.grants).toEqual([
      expect.objectContaining({
        chatId: a.id,
        serverName: 'Files',
        toolName: 'write_file',
        definitionHash: writeFile.definitionHash,
      }),
    ]);
    expect((await ok<{ grants: ChatGrant[] }>('grants.list')).grants).toHaveLength(2);
    emitted = [];
    expect(await ok('grants.revoke', { chatId: a.id, server: 'Files', tool: 'write_file' })).toEqual({
      revoked: listA.grants[0],
    });
    expect(emitted).toEqual([{ event: 'grants.onDidChange', payload: { kind: 'revoked', grant: listA.grants[0] } }]);
    expect((await ok<{ grants: ChatGrant[] }>('grants.list', { chatId: a.id })).grants).toEqual([]);
    const again = await failure('grants.revoke', { chatId: a.id, server: 'Files', tool: 'write_file' });
    expect(again).toMatchObject({
      code: 'not_found',
      message: "This chat has no 'Allow for this chat' for Files.write_file.",
    });
    // Revoking in the wrong chat does not touch the other chat's grant.
    expect((await failure('grants.revoke', { chatId: a.id, server: 'Files', tool: 'read_file' })).code).toBe(
      'not_found',
    );
    expect((await ok<{ grants: ChatGrant[] }>('grants.list', { chatId: b.id })).grants).toHaveLength(1);
    // Deleting a chat takes its grants along.
    await ok('chat.delete', { id: b.id });
    expect((await ok<{ grants: ChatGrant[] }>('grants.list')).grants).toEqual([]);
    expect((await failure('grants.list', { chatId: b.id })).code).toBe('not_found');
  });

  it('reads and sets the chat approval mode, announcing the change', async () => {
    const chat = await ok<Chat>('chat.create');
    expect(await ok('approvals.getChatMode', { chatId: chat.id })).toEqual({
      chatId: chat.id,
      mode: 'use-tool-settings',
    });
    emitted = [];
    expect(await ok('approvals.setChatMode', { chatId: chat.id, mode: 'never-ask' })).toEqual({
      chatId: chat.id,
      mode: 'never-ask',
    });
    expect(emitted).toEqual([
      { event: 'approvals.onDidChange', payload: { kind: 'chat-mode', chatId: chat.id, mode: 'never-ask' } },
    ]);
    expect(await ok('approvals.getChatMode', { chatId: chat.id })).toEqual({ chatId: chat.id, mode: 'never-ask' });
    expect((await failure('approvals.setChatMode', { chatId: chat.id, mode: 'sometimes' })).code).toBe('invalid_input');
    expect((await failure('approvals.getChatMode', { chatId: UNKNOWN_CHAT })).code).toBe('not_found');
  });
});

describe('approvals.pending', () => {
  it("answers the chat's waiting calls, and they survive a restart", async () => {
    const chat = await ok<Chat>('chat.create');
    const result = services.approvals.gate.evaluate(
      { chatId: chat.id, exchangeId: 'x' },
      { toolCallId: 'p1', serverName: 'Files', toolName: 'write_file', args: { path: '/a' } },
      writeFile,
    );
    if (result.outcome !== 'ask') throw new Error('expected ask');
    services.approvals.pending.add(chat.id, 'x', [result.request]);
    const first = await ok<{ approvals: unknown[] }>('approvals.pending', { chatId: chat.id });
    expect(first.approvals).toEqual([
      expect.objectContaining({ chatId: chat.id, exchangeId: 'x', request: result.request }),
    ]);
    services.close();
    start();
    expect(await ok('approvals.pending', { chatId: chat.id })).toEqual(first);
    expect((await failure('approvals.pending', { chatId: UNKNOWN_CHAT })).code).toBe('not_found');
  });
});
