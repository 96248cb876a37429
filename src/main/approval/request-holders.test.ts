// A record that names the process holding a server's request is data anyone who can write the database can forge
// (docs/user/approvals.md#one-inbox, ./request-holders.ts). One naming a running process that is no AI Workbench
// holder — pid 1, a process of the test's, the test's own pid — must neither be listed nor answered as if real, and an
// answer must not wait on it: it is refused with why, nothing is sent or changed, the request stays as it was.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ElicitationFormView } from '../../shared/server-request-views';
import { createEventHub } from '../event-hub';
import { WorkbenchError } from '../errors';
import { openDatabase, type Database } from '../storage/database';
import { createAnswerInbox, type AnswerInbox } from './answer-inbox';
import { createChatApprovalStore } from './chat-approval-store';
import { createPendingStore } from './pending-store';
import { HOLDER_QUIET_MS, lookedLately, lookedPast } from './request-holders';
import { createServerRequestWaits, type ServerRequestWaits } from './server-request-waits';
import { recordingAuditLog } from './testing/fixtures';

const START = Date.UTC(2026, 0, 2, 12, 0, 0);

let dir: string;
let db: Database;
let inbox: AnswerInbox;
let app: ServerRequestWaits;
/** A running process that is not AI Workbench's. */
let stranger: ChildProcess;

beforeEach(() => {
  vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'Date'] });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-holders-'));
  db = openDatabase(path.join(dir, 'workbench.db'));
  inbox = createAnswerInbox(db, () => Date.now());
  app = createServerRequestWaits({
    store: createPendingStore(db),
    chatStore: createChatApprovalStore(db),
    audit: recordingAuditLog(),
    events: createEventHub(),
    actor: 'user',
    now: () => Date.now(),
    timeoutSeconds: () => 0,
    timers: { arm: () => {}, clear: () => {} },
    inbox,
    holder: 'browser',
  });
  stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
});

afterEach(() => {
  app.dispose();
  db.close();
  stranger.kill();
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

let serial = 0;
const formView = (): ElicitationFormView => ({
  id: `00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
  kind: 'elicitation',
  mode: 'form',
  serverName: 'Everything',
  chatId: null,
  createdAt: START,
  message: 'Your bank asks for your PIN',
  requestedSchema: { type: 'object', properties: { pin: { type: 'string' } } },
});

/** A waiting form whose record names `owner` as its holder, written straight into the database as a forger would. */
function forged(owner: string): ElicitationFormView {
  const view = formView();
  db.prepare(
    "INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at, owner) VALUES (NULL, ?, 'elicitation', ?, ?, ?)",
  ).run(view.id, JSON.stringify(view), START, owner);
  return view;
}

/** A look recorded for `owner`, as a forger that can write the database would record it. */
const forgeLook = (owner: string, at: number): void =>
  void db
    .prepare(
      'INSERT INTO request_holders (owner, looked_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET looked_at = excluded.looked_at',
    )
    .run(owner, at);

const answers = (): { status: string; message: string | null }[] =>
  db.prepare('SELECT status, message FROM pending_answers ORDER BY rowid').all() as never;
const status = (id: string): string =>
  (db.prepare('SELECT status FROM pending_requests WHERE request_id = ?').get(id) as { status: string }).status;

/** How a promise ended by now, without waiting for it. */
async function settledNow(promise: Promise<unknown>): Promise<{ error: unknown } | 'pending' | 'resolved'> {
  let outcome: { error: unknown } | 'pending' | 'resolved' = 'pending';
  promise.then(
    () => (outcome = 'resolved'),
    (error: unknown) => (outcome = { error }),
  );
  await vi.advanceTimersByTimeAsync(0);
  return outcome;
}

describe('a record naming a running process that is no holder', () => {
  it.each([
    ['pid 1', () => 1],
    ['a running process of the test', () => stranger.pid as number],
  ])(
    '(%s) is not listed, and an answer to it is refused at once: nothing is sent, the request stays',
    async (_, pid) => {
      const view = forged(`${pid()}:forged:cli chat`);
      expect(app.heldElsewhere()).toEqual([]);
      expect(app.waitingAnywhere()).toEqual([]);
      expect(app.whyNotAnswerable(view.id)).toMatchObject({
        code: 'conflict',
        message: expect.stringContaining(
          `names pid ${pid()} as the process that holds it, but that process does not answer`,
        ),
      });
      const outcome = await settledNow(app.relay(view.id, { action: 'accept', content: { pin: '1234' } }));
      expect(outcome).toEqual({ error: expect.any(WorkbenchError) });
      expect(((outcome as { error: WorkbenchError }).error as WorkbenchError).message).toMatch(
        /^Nothing was sent: .* The record may not have been written by AI Workbench; it is left as it is\.$/,
      );
      expect(answers()).toEqual([]);
      expect(status(view.id)).toBe('pending');
    },
  );

  it("(this process's own pid, no engine of it) is refused at once too", async () => {
    const view = forged(`${process.pid}:forged:cli chat`);
    expect(app.heldElsewhere()).toEqual([]);
    const outcome = await settledNow(app.relay(view.id, { action: 'decline' }));
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'conflict' }) });
    expect(answers()).toEqual([]);
    expect(status(view.id)).toBe('pending');
  });

  it('with a look recorded for the future is not believed either', async () => {
    const owner = `${stranger.pid}:forged:cli chat`;
    const view = forged(owner);
    forgeLook(owner, Date.now() + 60 * 60_000);
    expect(app.heldElsewhere()).toEqual([]);
    expect(await settledNow(app.relay(view.id, { action: 'decline' }))).toEqual({
      error: expect.objectContaining({ code: 'conflict' }),
    });
    expect(answers()).toEqual([]);
  });
});

describe('a forger that records looks itself', () => {
  it('is given up on as soon as it looks without taking the answer: refused with why, withdrawn, the request stays', async () => {
    const owner = `${stranger.pid}:forged:cli chat`;
    const view = forged(owner);
    forgeLook(owner, Date.now());
    // Believed while it looks lately: listed with the pid and holder its record names.
    expect(app.heldElsewhere()).toEqual([
      expect.objectContaining({ id: view.id, heldElsewhere: { pid: stranger.pid, process: 'workbench chat' } }),
    ]);
    const relay = app.relay(view.id, { action: 'decline' });
    expect(await settledNow(relay)).toBe('pending');
    expect(answers()).toEqual([{ status: 'new', message: null }]);
    // It "looks" again, and leaves the answer where it is: a holder takes what is addressed to it when it looks.
    forgeLook(owner, Date.now() + 1);
    await vi.advanceTimersByTimeAsync(250);
    const outcome = await settledNow(relay);
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'unavailable' }) });
    expect(((outcome as { error: Error }).error as Error).message).toBe(
      `Not applied: the process named as holding it (pid ${stranger.pid}) looked for answers without taking yours, which the AI Workbench process holding it would have done.`,
    );
    expect(answers()).toEqual([{ status: 'refused', message: expect.stringContaining('without taking yours') }]);
    expect(status(view.id)).toBe('pending');
  });

  it('is given up on once it stops looking, long before the limit for a busy holder', async () => {
    const owner = `1:forged:cli chat`;
    const view = forged(owner);
    forgeLook(owner, Date.now());
    const relay = app.relay(view.id, { action: 'decline' });
    expect(await settledNow(relay)).toBe('pending');
    await vi.advanceTimersByTimeAsync(HOLDER_QUIET_MS + 500);
    const outcome = await settledNow(relay);
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'unavailable' }) });
    expect(((outcome as { error: Error }).error as Error).message).toBe(
      'Not applied: the process named as holding it (pid 1) stopped looking for answers.',
    );
    // Withdrawn, never taken: the request waits as it did, and no longer listed.
    expect(answers()).toEqual([{ status: 'refused', message: expect.stringContaining('stopped looking') }]);
    expect(status(view.id)).toBe('pending');
    expect(app.heldElsewhere()).toEqual([]);
  });
});

describe('a holder proves itself by looking', () => {
  it('records when it looks for answers while it holds something, and its record goes when it ends', async () => {
    const holder = createServerRequestWaits({
      store: createPendingStore(db),
      chatStore: createChatApprovalStore(db),
      audit: recordingAuditLog(),
      events: createEventHub(),
      actor: 'cli',
      now: () => Date.now(),
      timeoutSeconds: () => 0,
      timers: { arm: () => {}, clear: () => {} },
      inbox,
      holder: 'cli chat',
    });
    const applied: string[] = [];
    holder.onAnswer((id) => applied.push(id));
    const view = formView();
    holder.add(view);
    const owner = (
      db.prepare('SELECT owner FROM pending_requests WHERE request_id = ?').get(view.id) as { owner: string }
    ).owner;
    await vi.advanceTimersByTimeAsync(0);
    expect(inbox.lookedAt(owner)).toBe(Date.now());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lookedLately(inbox.lookedAt(owner), Date.now())).toBe(true);
    holder.dispose();
    expect(inbox.lookedAt(owner)).toBeUndefined();
  });

  it('is believed while it looked lately, and given up on when it looked past an answer', () => {
    expect(lookedLately(undefined, START)).toBe(false);
    expect(lookedLately(START - HOLDER_QUIET_MS, START)).toBe(true);
    expect(lookedLately(START - HOLDER_QUIET_MS - 1, START)).toBe(false);
    expect(lookedLately(START + 60_000, START)).toBe(false);
    expect(lookedPast(START, START)).toBe(false);
    expect(lookedPast(START + 1, START)).toBe(true);
    expect(lookedPast(undefined, START)).toBe(false);
  });
});
