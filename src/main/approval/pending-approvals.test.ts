import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalResolution, ApprovalsChange, GrantsChange, ToolCallApproval } from '../../shared/approval';
import { createSqliteAuditLog } from '../audit/sqlite-audit-log';
import { createChatRepository } from '../chat/chat-repository';
import { createChatService, type ChatService } from '../chat/chat-service';
import { createEventHub } from '../event-hub';
import { openDatabase, type Database } from '../storage/database';
import { createArgumentsValidator } from './arguments-validator';
import { createChatApprovalStore, type ChatApprovalStore } from './chat-approval-store';
import { denyCheck } from './policy/decision-pipeline';
import { createPendingApprovals, type PendingApprovals } from './pending-approvals';
import { createPendingStore } from './pending-store';
import { makeTool, policyOf, recordingAuditLog, refusal, requestFor, type RecordingAuditLog } from './testing/fixtures';

const START = Date.UTC(2025, 0, 2, 12, 0, 0);
const writeFile = makeTool('Files', 'write_file', {
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
});
const readFile = makeTool('Files', 'read_file');
/** The organisation forbids writing /etc; the person forbids any file named forbidden*. */
const DENY_POLICY = policyOf(
  {
    rules: [
      {
        id: 'no-forbidden',
        effect: 'deny',
        server: 'Files',
        tool: 'write_file',
        args: [{ pointer: '/path', match: 'glob', value: '**/forbidden*' }],
      },
    ],
  },
  {
    rules: [
      { id: 'no-etc', server: 'Files', tool: '*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] },
    ],
  },
);

let dir: string;
let db: Database;
let chats: ChatService;
let chatStore: ChatApprovalStore;
let audit: RecordingAuditLog;
let changes: ApprovalsChange[];
let grantChanges: GrantsChange[];
let resolved: ApprovalResolution[][];
let errors: unknown[];
let due: string[];
let timeoutSeconds: number;
let pending: PendingApprovals;
let chatA: string;
let chatB: string;

function start(): void {
  db = openDatabase(path.join(dir, 'workbench.db'));
  const events = createEventHub();
  events.subscribe((event, payload) => {
    if (event === 'approvals.onDidChange') changes.push(payload as ApprovalsChange);
    // Every claimed resolution is announced once, whoever asked (a person, a timeout, a stop).
    if (event === 'approvals.onDidChange' && (payload as ApprovalsChange).kind === 'resolved') {
      resolved.push([...(payload as Extract<ApprovalsChange, { kind: 'resolved' }>).resolutions]);
    }
    if (event === 'grants.onDidChange') grantChanges.push(payload as GrantsChange);
  });
  chats = createChatService({ repository: createChatRepository(db), events });
  chatStore = createChatApprovalStore(db);
  pending = createPendingApprovals({
    store: createPendingStore(db),
    chatStore,
    audit,
    events,
    validator: createArgumentsValidator(),
    actor: 'user',
    denyCheck: (call) => denyCheck(call, DENY_POLICY),
    timeoutSeconds: () => timeoutSeconds,
    onError: (error) => errors.push(error),
    // The store only says a call is due; the exchange coordinator then expires it (here, the test does).
    onDue: (chatId) => {
      due.push(chatId);
      pending.expire(chatId);
    },
  });
}

function stop(): void {
  pending.dispose();
  db.close();
}

const answer = (
  toolCallId: string,
  decision: ToolCallApproval['decision'],
  extra: Partial<ToolCallApproval> = {},
): ToolCallApproval => ({ toolCallId, decision, ...extra });

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-pending-'));
  audit = recordingAuditLog();
  changes = [];
  grantChanges = [];
  resolved = [];
  errors = [];
  due = [];
  timeoutSeconds = 300;
  start();
  chatA = chats.create({ title: 'A' }).id;
  chatB = chats.create({ title: 'B' }).id;
});

afterEach(() => {
  if (db.open) stop();
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('adding calls that wait', () => {
  it('keeps them per chat with their deadline, and announces them', () => {
    const added = pending.add(chatA, 'exchange-1', [
      requestFor(writeFile, 'call-1', { path: '/tmp/a' }),
      requestFor(readFile, 'call-2'),
    ]);
    expect(
      added.map((approval) => [
        approval.request.toolCallId,
        approval.exchangeId,
        approval.createdAt,
        approval.expiresAt,
      ]),
    ).toEqual([
      ['call-1', 'exchange-1', START, START + 300_000],
      ['call-2', 'exchange-1', START, START + 300_000],
    ]);
    expect(pending.list(chatA)).toEqual(added);
    expect(pending.list(chatB)).toEqual([]);
    expect(changes).toEqual([{ kind: 'pending', chatId: chatA, approvals: added }]);
  });

  it('refuses an unknown chat, an id used before in the chat, and a call the policy did not ask about', () => {
    expect(
      refusal(() => pending.add('00000000-0000-4000-8000-000000000000', undefined, [requestFor(readFile, 'c')])).code,
    ).toBe('not_found');
    pending.add(chatA, undefined, [requestFor(readFile, 'c')]);
    expect(refusal(() => pending.add(chatA, undefined, [requestFor(readFile, 'c')])).message).toContain(
      'already waiting or was decided in this chat: c',
    );
    // The same id in another chat is another call.
    expect(pending.add(chatB, undefined, [requestFor(readFile, 'c')])).toHaveLength(1);
    const allowed = {
      ...requestFor(readFile, 'd'),
      decision: { ...requestFor(readFile, 'd').decision, outcome: 'allow' as const },
    };
    expect(() => pending.add(chatA, undefined, [allowed])).toThrow(/only calls it asks about wait for a person/);
  });
});

describe('submitting an approval message', () => {
  beforeEach(() => {
    pending.add(chatA, 'x1', [
      requestFor(writeFile, 'a1', { path: '/tmp/a' }),
      requestFor(readFile, 'a2', { path: '/tmp/b' }),
    ]);
    pending.add(chatB, 'x2', [requestFor(readFile, 'b1')]);
    changes = [];
  });

  it('applies every answer, records each before, grants ALLOW_SESSION for this chat and tells the tool loop', () => {
    const resolutions = pending.submit(chatA, [
      answer('a1', 'TOOL_CALL_DECISION_ALLOW_SESSION'),
      answer('a2', 'TOOL_CALL_DECISION_DENY', { reason: 'not now' }),
    ]);
    expect(resolutions).toEqual([
      {
        chatId: chatA,
        exchangeId: 'x1',
        toolCallId: 'a1',
        serverName: 'Files',
        toolName: 'write_file',
        outcome: 'allow_session',
        actor: 'user',
        args: { path: '/tmp/a' },
        edited: false,
        reason: null,
        decidedAt: START,
      },
      {
        chatId: chatA,
        exchangeId: 'x1',
        toolCallId: 'a2',
        serverName: 'Files',
        toolName: 'read_file',
        outcome: 'deny',
        actor: 'user',
        args: { path: '/tmp/b' },
        edited: false,
        reason: 'not now',
        decidedAt: START,
      },
    ]);
    expect(
      audit.decisions.map((record) => [
        record.toolCallId,
        record.decision,
        record.actor,
        record.decidedBy,
        record.reason,
        record.definitionHash,
      ]),
    ).toEqual([
      ['a1', 'allow_session', 'user', "You chose 'Allow for this chat'", undefined, writeFile.definitionHash],
      ['a2', 'deny', 'user', "You chose 'Deny'", 'not now', readFile.definitionHash],
    ]);
    expect(chatStore.grantsOf(chatA)).toEqual([
      {
        chatId: chatA,
        serverName: 'Files',
        toolName: 'write_file',
        definitionHash: writeFile.definitionHash,
        grantedAt: START,
      },
    ]);
    expect(chatStore.grantsOf(chatB)).toEqual([]);
    expect(grantChanges).toEqual([{ kind: 'granted', grant: chatStore.grantsOf(chatA)[0] }]);
    expect(changes).toEqual([{ kind: 'resolved', chatId: chatA, resolutions }]);
    expect(resolved).toEqual([resolutions]);
    expect(pending.list(chatA)).toEqual([]);
    expect(pending.list(chatB)).toHaveLength(1);
  });

  function expectNothingApplied(): void {
    expect(pending.list(chatA).map((approval) => approval.request.toolCallId)).toEqual(['a1', 'a2']);
    expect(audit.decisions).toEqual([]);
    expect(chatStore.grantsOf(chatA)).toEqual([]);
    expect(changes).toEqual([]);
    expect(resolved).toEqual([]);
  }

  it('refuses an unknown id, and applies nothing of the message', () => {
    const error = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_SESSION'),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
        answer('zz', 'TOOL_CALL_DECISION_DENY'),
      ]),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe(
      "The approval was not applied: tool call 'zz' is not a tool call that waits for approval (unknown id).",
    );
    expectNothingApplied();
  });

  it("refuses another chat's call, saying so", () => {
    const error = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
        answer('b1', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
      ]),
    );
    expect(error.message).toContain("tool call 'b1' is not a call of this chat (it belongs to another chat)");
    expectNothingApplied();
    expect(pending.list(chatB)).toHaveLength(1);
  });

  it('refuses an id answered twice and a waiting call left unanswered', () => {
    const twice = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
        answer('a1', 'TOOL_CALL_DECISION_DENY'),
        answer('a2', 'TOOL_CALL_DECISION_DENY'),
      ]),
    );
    expect(twice.message).toContain("tool call 'a1' is answered more than once in this message");
    const partial = refusal(() => pending.submit(chatA, [answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE')]));
    expect(partial.message).toContain(
      'Files.read_file waits for a decision too; an approval message answers every call waiting in the chat',
    );
    expectNothingApplied();
  });

  it('refuses a call that was already decided', () => {
    pending.submit(chatA, [answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE'), answer('a2', 'TOOL_CALL_DECISION_DENY')]);
    const again = refusal(() => pending.submit(chatA, [answer('a1', 'TOOL_CALL_DECISION_ALLOW_SESSION')]));
    expect(again.message).toBe('The approval was not applied: Files.write_file was already decided (allowed once).');
    expect(audit.decisions).toHaveLength(2);
    expect(chatStore.grantsOf(chatA)).toEqual([]);
  });

  it('refuses edited arguments that fail the input schema, naming each path; the call stays pending', () => {
    const error = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE', { editedArgs: { count: 0, extra: true } }),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
      ]),
    );
    expect(error.message).toBe(
      'The approval was not applied: Files.write_file has edited arguments that do not fit its input schema: ' +
        '/path is required; /extra is not allowed by the schema; /count must be >= 1.',
    );
    expect(error.details).toEqual({
      problems: [
        {
          toolCallId: 'a1',
          tool: 'Files.write_file',
          problem: expect.stringContaining('do not fit its input schema'),
          arguments: [
            { path: '/path', problem: 'is required' },
            { path: '/extra', problem: 'is not allowed by the schema' },
            { path: '/count', problem: 'must be >= 1' },
          ],
        },
      ],
    });
    expectNothingApplied();
    const fine = pending.submit(chatA, [
      answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE', { editedArgs: { path: '/tmp/edited', count: 2 } }),
      answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
    ]);
    expect(fine[0]).toMatchObject({ args: { path: '/tmp/edited', count: 2 }, edited: true, outcome: 'allow_once' });
    expect(audit.decisions[0]).toMatchObject({
      args: { path: '/tmp/a' },
      editedArgs: { path: '/tmp/edited', count: 2 },
    });
  });

  it("refuses edited arguments a deny rule refuses, the organisation's first, naming the rule; nothing is applied", () => {
    const error = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE', { editedArgs: { path: 'forbidden.txt' } }),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
      ]),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(
      /^The approval was not applied: Files.write_file has edited arguments that a deny rule refuses \(Denied by your rule #1: /,
    );
    expect(error.details).toEqual({
      problems: [
        {
          toolCallId: 'a1',
          tool: 'Files.write_file',
          problem: expect.stringContaining('Denied by your rule #1'),
          deniedBy: {
            source: { kind: 'deny-rule', ruleId: 'no-forbidden', ruleNumber: 1 },
            reason: expect.any(String),
          },
        },
      ],
    });
    expectNothingApplied();
    // The organisation's rule is checked first, on any path of the edit.
    const managed = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_SESSION', { editedArgs: { path: '/etc/forbidden' } }),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
      ]),
    );
    expect(managed.details).toMatchObject({
      problems: [{ toolCallId: 'a1', deniedBy: { source: { kind: 'managed-deny-rule', ruleId: 'no-etc' } } }],
    });
    expect(managed.message).toContain("Denied by your organisation's policy, rule 'no-etc'");
    expectNothingApplied();
    expect(chatStore.grantsOf(chatA)).toEqual([]);
  });

  it('refuses edits with a deny decision', () => {
    const error = refusal(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_DENY', { editedArgs: { path: '/x' } }),
        answer('a2', 'TOOL_CALL_DECISION_DENY'),
      ]),
    );
    expect(error.message).toContain('has edited arguments with a deny decision');
    expectNothingApplied();
  });

  it('leaves every call waiting when the audit log cannot record', () => {
    audit.failNext = new Error('disk full');
    expect(() =>
      pending.submit(chatA, [
        answer('a1', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
        answer('a2', 'TOOL_CALL_DECISION_ALLOW_ONCE'),
      ]),
    ).toThrow('disk full');
    expect(pending.list(chatA)).toHaveLength(2);
    expect(resolved).toEqual([]);
  });
});

describe('a tool whose input schema is broken', () => {
  it('refuses edits, saying the schema is invalid, and still lets the call be allowed as it is', () => {
    const broken = makeTool('Weird', 'thing', {
      inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } },
    });
    pending.add(chatA, undefined, [requestFor(broken, 'w1', { a: 1 })]);
    const error = refusal(() =>
      pending.submit(chatA, [answer('w1', 'TOOL_CALL_DECISION_ALLOW_ONCE', { editedArgs: { a: 2 } })]),
    );
    expect(error.message).toMatch(
      /Weird\.thing has edited arguments, but its input schema is invalid, so they cannot be checked \(schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/,
    );
    expect(pending.submit(chatA, [answer('w1', 'TOOL_CALL_DECISION_ALLOW_ONCE')])[0]?.outcome).toBe('allow_once');
  });
});

describe('timeouts', () => {
  it('resolve a call nobody answered as timeout, recorded by the system and never as a deny', () => {
    pending.add(chatA, 'x', [requestFor(readFile, 't1')]);
    vi.advanceTimersByTime(299_999);
    expect(pending.list(chatA)).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(pending.list(chatA)).toEqual([]);
    expect(audit.decisions).toEqual([
      expect.objectContaining({
        toolCallId: 't1',
        decision: 'timeout',
        actor: 'system',
        decidedBy: 'No one decided within 5 minutes (approval timeout)',
      }),
    ]);
    expect(resolved).toEqual([
      [expect.objectContaining({ toolCallId: 't1', outcome: 'timeout', actor: 'system', exchangeId: 'x' })],
    ]);
    expect(changes.at(-1)).toMatchObject({ kind: 'resolved', chatId: chatA });
    // Answering afterwards is refused, by name.
    expect(refusal(() => pending.submit(chatA, [answer('t1', 'TOOL_CALL_DECISION_ALLOW_ONCE')])).message).toContain(
      'Files.read_file was already decided (timed out)',
    );
  });

  it('follow the configured timeout; 0 waits forever', () => {
    timeoutSeconds = 60;
    pending.add(chatA, undefined, [requestFor(readFile, 'short')]);
    timeoutSeconds = 0;
    pending.add(chatB, undefined, [requestFor(readFile, 'forever')]);
    expect(pending.list(chatB)[0]?.expiresAt).toBeNull();
    vi.advanceTimersByTime(60_000);
    expect(audit.decisions.map((record) => [record.toolCallId, record.decidedBy])).toEqual([
      ['short', 'No one decided within 1 minute (approval timeout)'],
    ]);
    vi.advanceTimersByTime(30 * 24 * 3600 * 1000);
    expect(pending.list(chatB)).toHaveLength(1);
  });

  it('wait out the stored deadline even when the clock was set back meanwhile', () => {
    pending.add(chatA, undefined, [requestFor(readFile, 'c1')]);
    vi.setSystemTime(START - 100_000);
    vi.advanceTimersByTime(300_000);
    expect(pending.list(chatA)).toHaveLength(1);
    vi.advanceTimersByTime(100_000);
    expect(audit.decisions.map((record) => [record.toolCallId, record.decision])).toEqual([['c1', 'timeout']]);
  });

  it('stop when the call is answered in time', () => {
    pending.add(chatA, undefined, [requestFor(readFile, 'r1')]);
    pending.submit(chatA, [answer('r1', 'TOOL_CALL_DECISION_ALLOW_ONCE')]);
    vi.advanceTimersByTime(600_000);
    expect(audit.decisions.map((record) => record.decision)).toEqual(['allow_once']);
    expect(errors).toEqual([]);
  });

  it('leave the call waiting and report when the timeout cannot be recorded', () => {
    pending.add(chatA, undefined, [requestFor(readFile, 'r1')]);
    audit.failNext = new Error('disk full');
    vi.advanceTimersByTime(300_000);
    expect(errors).toEqual([new Error('disk full')]);
    expect(pending.list(chatA)).toHaveLength(1);
  });
});

describe('a restart', () => {
  it('restores the waiting calls and their timers from the stored deadlines', () => {
    pending.add(chatA, 'x', [requestFor(writeFile, 'p1', { path: '/tmp/a' })]);
    const before = pending.list(chatA);
    stop();
    vi.advanceTimersByTime(200_000);
    start();
    expect(pending.list(chatA)).toEqual(before);
    vi.advanceTimersByTime(99_999);
    expect(audit.decisions).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(audit.decisions.map((record) => [record.toolCallId, record.decision])).toEqual([['p1', 'timeout']]);
    expect(pending.list(chatA)).toEqual([]);
  });

  it('times out at once what expired while the app was closed, and answers still work after a restart', () => {
    pending.add(chatA, undefined, [requestFor(readFile, 'late')]);
    pending.add(chatB, undefined, [requestFor(readFile, 'kept')]);
    stop();
    vi.setSystemTime(START + 3_600_000);
    start();
    // Both deadlines passed while the app was closed: both calls time out as soon as the timers run.
    vi.advanceTimersByTime(0);
    expect(audit.decisions.map((record) => [record.toolCallId, record.decision])).toEqual([
      ['late', 'timeout'],
      ['kept', 'timeout'],
    ]);
    timeoutSeconds = 0;
    pending.add(chatA, undefined, [requestFor(readFile, 'n1')]);
    stop();
    start();
    expect(pending.submit(chatA, [answer('n1', 'TOOL_CALL_DECISION_ALLOW_SESSION')])[0]?.outcome).toBe('allow_session');
  });
});

describe('a front end with no person to ask (the CLI without a terminal)', () => {
  it("denies every waiting call as the system with the front end's reason, never as a person's 'Deny'", () => {
    pending.add(chatA, 'x1', [requestFor(readFile, 'u1'), requestFor(writeFile, 'u2', { path: '/x' })]);
    pending.add(chatB, 'x2', [requestFor(readFile, 'u3')]);
    const why = "Denied by the CLI's non-interactive mode: no one at a terminal could be asked";
    const denied = pending.denyUnattended(chatA, why);
    expect(denied).toEqual([
      expect.objectContaining({ toolCallId: 'u1', outcome: 'deny', actor: 'system', reason: why, edited: false }),
      expect.objectContaining({ toolCallId: 'u2', outcome: 'deny', actor: 'system', reason: why }),
    ]);
    expect(audit.decisions).toEqual([
      expect.objectContaining({ toolCallId: 'u1', decision: 'deny', actor: 'system', decidedBy: why }),
      expect.objectContaining({ toolCallId: 'u2', decision: 'deny', actor: 'system', decidedBy: why }),
    ]);
    expect(audit.decisions.some((decision) => decision.actor === 'user')).toBe(false);
    expect(resolved).toEqual([denied]);
    expect(pending.list(chatA)).toEqual([]);
    // Only that chat's calls; another chat's wait on.
    expect(pending.list(chatB).map((approval) => approval.request.toolCallId)).toEqual(['u3']);
    expect(refusal(() => pending.submit(chatA, [answer('u1', 'TOOL_CALL_DECISION_ALLOW_ONCE')])).message).toContain(
      'Files.read_file was already decided (denied)',
    );
    expect(pending.denyUnattended(chatA, why)).toEqual([]);
  });
});

describe('stopping a chat and deleting it', () => {
  it('cancels the waiting calls of one exchange, recorded as the system', () => {
    pending.add(chatA, 'x1', [requestFor(readFile, 'c1')]);
    pending.add(chatA, 'x2', [requestFor(readFile, 'c2')]);
    const cancelled = pending.cancelAll(chatA, 'x1');
    expect(cancelled).toEqual([expect.objectContaining({ toolCallId: 'c1', outcome: 'cancelled', actor: 'system' })]);
    expect(audit.decisions).toEqual([
      expect.objectContaining({
        toolCallId: 'c1',
        decision: 'cancelled',
        actor: 'system',
        decidedBy: 'The chat was stopped before anyone decided',
      }),
    ]);
    expect(pending.list(chatA).map((approval) => approval.request.toolCallId)).toEqual(['c2']);
    expect(pending.cancelAll(chatA).map((resolution) => resolution.toolCallId)).toEqual(['c2']);
    expect(pending.cancelAll(chatA)).toEqual([]);
  });

  it('removes its waiting calls, grants and mode with it, and its timers with them', () => {
    pending.add(chatA, undefined, [requestFor(readFile, 'd1')]);
    pending.submit(chatA, [answer('d1', 'TOOL_CALL_DECISION_ALLOW_SESSION')]);
    pending.add(chatA, undefined, [requestFor(writeFile, 'd2', { path: '/x' })]);
    chatStore.setMode(chatA, 'never-ask');
    chats.delete(chatA);
    const count = (table: string): number =>
      (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE chat_id = ?`).get(chatA) as { n: number }).n;
    expect([count('pending_requests'), count('approval_grants'), count('chat_approval_modes')]).toEqual([0, 0, 0]);
    const recorded = audit.decisions.length;
    vi.advanceTimersByTime(600_000);
    expect(audit.decisions).toHaveLength(recorded);
    expect(errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a call resolved meanwhile (another window or process)', () => {
  it('rolls back the claim and its audit rows together: no row for a decision that never applied', () => {
    // The real SQLite audit log on the same database, and a second engine that read the waiting calls before the
    // first one resolved them (as another process could): its check passes, its claim finds the call gone.
    const sqliteAudit = createSqliteAuditLog({ db, dataDir: dir });
    const store = createPendingStore(db);
    const engine = (engineStore: typeof store): PendingApprovals =>
      createPendingApprovals({
        store: engineStore,
        chatStore,
        audit: sqliteAudit,
        events: createEventHub(),
        validator: createArgumentsValidator(),
        actor: 'user',
        denyCheck: () => undefined,
        timeoutSeconds: () => 0,
        onDue: () => {},
      });
    const other = engine({
      ...store,
      get: (chatId, toolCallId) => stale.get(`${chatId}\u0000${toolCallId}`),
      waiting: () => [],
    });
    const first = engine(store);
    first.add(chatA, 'x1', [requestFor(writeFile, 'r1', { path: '/tmp/a' })]);
    const stale = new Map([[`${chatA}\u0000r1`, store.get(chatA, 'r1')]]);
    first.submit(chatA, [answer('r1', 'TOOL_CALL_DECISION_DENY')]);

    const error = refusal(() => other.submit(chatA, [answer('r1', 'TOOL_CALL_DECISION_ALLOW_SESSION')]));
    expect(error.message).toBe(
      "Tool call 'r1' was resolved meanwhile (by another window or process); nothing was applied.",
    );
    const rows = sqliteAudit.query({ chatId: chatA, limit: 10 }).entries;
    expect(rows.map((row) => [row.toolCallId, row.decision, row.actor])).toEqual([['r1', 'deny', 'user']]);
    expect(store.get(chatA, 'r1')?.status).toBe('deny');
    expect(chatStore.grantsOf(chatA)).toEqual([]);
    other.dispose();
    first.dispose();
  });
});
