// The deny rules against every way a call reaches a tool (docs/user/approvals.md#which-setting-wins), through the
// dispatcher and the real services: SQLite, the Demo provider and the real Files server, whose sandbox shows what
// actually ran.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingApproval } from '../../shared/approval';
import type { AuditEntry } from '../../shared/audit';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import type { ChatActivity, ChatMessage, ToolCallRecord } from '../../shared/messages';
import { sandboxDir } from '../settings/default-servers';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

/** Seed 000's example: no file whose name starts with "forbidden" is written. */
const FORBIDDEN = {
  server: 'Files',
  tool: 'write_file',
  args: [{ pointer: '/path', match: 'glob', value: '**/forbidden*' }],
} as const;
const USER_RULE = { id: 'no-forbidden', effect: 'deny', ...FORBIDDEN } as const;
const MANAGED_RULE = { id: 'org-no-forbidden', ...FORBIDDEN } as const;

let dir: string;
let services: Services | undefined;
let dispatch: Dispatch;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

afterEach(async () => {
  if (services) {
    await services.conversations.dispose();
    await services.mcp.stop();
    services.close();
    services = undefined;
  }
  expect(onInternalError).not.toHaveBeenCalled();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(managedRules: readonly unknown[] = []): Promise<Services> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-deny-contract-'));
  let managedPolicyFile: string | null = null;
  if (managedRules.length > 0) {
    managedPolicyFile = path.join(dir, 'managed.json');
    fs.writeFileSync(managedPolicyFile, JSON.stringify({ rules: managedRules }));
  }
  const started = createServices({ dataDir: path.join(dir, 'data'), host: 'browser', version: '0', managedPolicyFile });
  services = started;
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(started), onInternalError);
  started.mcp.start();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { state, toolCount } = started.mcp.server('Files').status;
    if (state === 'ready' && toolCount > 0) return started;
    if (Date.now() > deadline) throw new Error(`The Files server did not become ready (state: ${state}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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

const written = (name: string): boolean => fs.existsSync(path.join(sandboxDir(path.join(dir, 'data')), name));
const now = (): Services => services as Services;

async function say(chatId: string, text: string): Promise<ChatActivity> {
  await ok('chat.send', { chatId, message: { role: 'user', text } });
  return now().conversations.settled(chatId);
}
async function waiting(chatId: string): Promise<PendingApproval[]> {
  return (await ok<{ approvals: PendingApproval[] }>('approvals.pending', { chatId })).approvals;
}
async function calls(chatId: string): Promise<ToolCallRecord[]> {
  const { messages } = await ok<{ messages: ChatMessage[] }>('chat.messages', { chatId, limit: 200 });
  return messages.flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
}
async function auditOf(chatId: string): Promise<AuditEntry[]> {
  const page = await ok<{ entries: AuditEntry[] }>('audit.query', { chatId, limit: 100 });
  return page.entries.slice().reverse();
}
const rows = (entries: readonly AuditEntry[]) =>
  entries.map((entry) => [entry.kind === 'policy' ? 'policy' : (entry.decision ?? entry.outcome), entry.actor ?? null]);

describe.each([
  ['a rule of your own', USER_RULE, [], 'deny-rule', /^Denied by your rule #1: /],
  [
    "your organisation's rule (WORKBENCH_MANAGED_POLICY)",
    undefined,
    [MANAGED_RULE],
    'managed-deny-rule',
    /^Denied by your organisation's policy, rule 'org-no-forbidden': /,
  ],
] as const)('a deny rule for forbidden* files: %s', (_name, userRule, managedRules, kind, words) => {
  async function setUp(): Promise<string> {
    await start(managedRules);
    if (userRule) await ok('policy.update', { rules: { add: [userRule] } });
    return (await ok<{ id: string }>('chat.create', {})).id;
  }

  it('refuses the direct call: nothing is written, the audit log names the rule', async () => {
    const chatId = await setUp();
    expect(await say(chatId, 'write forbidden.txt: secret')).toMatchObject({ status: 'idle' });
    expect(written('forbidden.txt')).toBe(false);
    expect(await calls(chatId)).toMatchObject([{ status: 'denied', error: expect.stringMatching(words) }]);
    expect(rows(await auditOf(chatId))).toEqual([['auto_deny', 'policy']]);
  });

  it('refuses an approval whose edited arguments the rule denies, whole: nothing applied, nothing recorded, the call still waits', async () => {
    const chatId = await setUp();
    expect(await say(chatId, 'write harmless.txt: hello')).toMatchObject({ status: 'waiting-approval' });
    const [pending] = await waiting(chatId);
    const toolCallId = pending?.request.toolCallId as string;
    const edited = {
      toolCallId,
      decision: 'TOOL_CALL_DECISION_ALLOW_ONCE',
      editedArgs: { path: 'forbidden.txt', content: 'hello' },
    };
    const error = await failure('chat.send', { chatId, message: { role: 'approval', toolCallApprovals: [edited] } });
    expect(error.code).toBe('invalid_input');
    // Errors name the tool, not the call's id.
    expect(error.message).toContain('Files.write_file has edited arguments that a deny rule refuses');
    expect(error.message).not.toContain(toolCallId);
    expect(error.message).toMatch(/Denied by your (rule #1|organisation's policy, rule 'org-no-forbidden')/);
    // A per-call problem the card and the CLI can show beside the call.
    expect(error.details).toMatchObject({
      problems: [{ toolCallId, deniedBy: { source: { kind }, reason: expect.stringMatching(words) } }],
    });
    await now().conversations.settled(chatId);
    expect(written('forbidden.txt')).toBe(false);
    expect(await waiting(chatId)).toHaveLength(1);
    expect(await auditOf(chatId)).toEqual([]);
    expect(
      (await ok<{ messages: ChatMessage[] }>('chat.messages', { chatId })).messages.map((message) => message.role),
    ).toEqual(['user', 'assistant']);

    // The same call may still be allowed as the model asked.
    await ok('chat.send', {
      chatId,
      message: { role: 'approval', toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }] },
    });
    expect(await now().conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    expect(written('harmless.txt')).toBe(true);
    expect(written('forbidden.txt')).toBe(false);
    expect(rows(await auditOf(chatId))).toEqual([
      ['allow_once', 'user'],
      ['success', null],
    ]);
  });
});

describe('a deny rule added while a call waited', () => {
  it('stops the call the person then allows: it never runs, its record says denied by the rule, the audit log says which rule and when', async () => {
    await start();
    const chatId = (await ok<{ id: string }>('chat.create', {})).id;
    expect(await say(chatId, 'write forbidden.txt: hello')).toMatchObject({ status: 'waiting-approval' });
    const [pending] = await waiting(chatId);
    const toolCallId = pending?.request.toolCallId as string;
    await ok('policy.update', { rules: { add: [USER_RULE] } });

    await ok('chat.send', {
      chatId,
      message: { role: 'approval', toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }] },
    });
    expect(await now().conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    expect(written('forbidden.txt')).toBe(false);
    expect(await calls(chatId)).toMatchObject([
      {
        toolCallId,
        status: 'denied',
        decision: { outcome: 'deny', actor: 'policy', reason: expect.stringMatching(/^Denied by your rule #1: /) },
      },
    ]);
    const entries = await auditOf(chatId);
    // The grant "Allow for this chat" made is a policy row, committed with the decision (docs/user/audit-log.md).
    expect(rows(entries)).toEqual([
      ['allow_session', 'user'],
      ['policy', 'user'],
      ['auto_deny', 'policy'],
    ]);
    expect(entries[2]?.decidedBy).toMatch(/^Denied by your rule #1: .*\(checked when the call was about to run\)$/);
    expect(entries.some((entry) => entry.outcome === 'success')).toBe(false);
    // The model is told the call was refused, and the chat goes on.
    const { messages } = await ok<{ messages: ChatMessage[] }>('chat.messages', { chatId });
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'approval', 'assistant']);
  });

  it('stops a call whose edited arguments a rule added after the edit was checked denies', async () => {
    await start();
    const chatId = (await ok<{ id: string }>('chat.create', {})).id;
    expect(await say(chatId, 'write harmless.txt: hello')).toMatchObject({ status: 'waiting-approval' });
    const [pending] = await waiting(chatId);
    const toolCallId = pending?.request.toolCallId as string;
    // The rule lands between the approval message and the run: the first thing the resumed exchange does.
    const stopRunning = now().events.subscribe((event, payload) => {
      if (event === 'approvals.onDidChange' && (payload as { kind: string }).kind === 'resolved') {
        now().approvals.policy.update({ rules: { add: [{ ...USER_RULE, args: [...USER_RULE.args] }] } });
      }
    });
    await ok('chat.send', {
      chatId,
      message: {
        role: 'approval',
        toolCallApprovals: [
          {
            toolCallId,
            decision: 'TOOL_CALL_DECISION_ALLOW_ONCE',
            editedArgs: { path: 'forbidden.txt', content: 'x' },
          },
        ],
      },
    });
    stopRunning();
    expect(await now().conversations.settled(chatId)).toMatchObject({ status: 'idle' });
    expect(written('forbidden.txt')).toBe(false);
    expect(written('harmless.txt')).toBe(false);
    expect(await calls(chatId)).toMatchObject([{ toolCallId, status: 'denied', args: { path: 'forbidden.txt' } }]);
    expect(rows(await auditOf(chatId))).toEqual([
      ['allow_once', 'user'],
      ['auto_deny', 'policy'],
    ]);
  });
});
