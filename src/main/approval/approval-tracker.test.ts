import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, type Services } from '../services';
import { createApprovalTracker, type ApprovalTracker, type ApprovalTrackerChange } from './approval-tracker';
import { makeTool, recordingAuditLog, requestFor } from './testing/fixtures';

const writeFile = makeTool('Files', 'write_file');
const fetchPage = makeTool('Web', 'fetch');

let dir: string;
let services: Services;
let tracker: ApprovalTracker;
let changes: ApprovalTrackerChange[];

function start(): void {
  services = createServices({
    dataDir: dir,
    host: 'electron',
    version: '0',
    managedPolicyFile: null,
    audit: recordingAuditLog(),
  });
  tracker = createApprovalTracker({
    approvals: services.approvals.pending.onDidChange,
    chats: services.chats.onDidChange,
    initial: () => services.approvals.pending.allWaiting(),
  });
  changes = [];
  tracker.onDidChange((change) => changes.push(change));
}
function stop(): void {
  tracker.dispose();
  services.close();
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 5, 9, 0) });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-tracker-'));
  start();
});
afterEach(() => {
  stop();
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ids = (): string[] =>
  tracker.waiting().map((approval) => `${approval.chatId.slice(0, 4)}/${approval.request.toolCallId}`);

describe('the approval tracker (calls waiting for a person, across chats)', () => {
  it('counts the calls of every chat as they start waiting, oldest first, and tells what was added', () => {
    const first = services.chats.create().id;
    const second = services.chats.create().id;
    expect(tracker.count()).toBe(0);
    expect(tracker.first()).toBeUndefined();
    services.approvals.pending.add(first, 'e1', [requestFor(writeFile, 'a'), requestFor(writeFile, 'b')]);
    services.approvals.pending.add(second, 'e2', [requestFor(fetchPage, 'c')]);
    expect(tracker.count()).toBe(3);
    expect(ids()).toEqual([`${first.slice(0, 4)}/a`, `${first.slice(0, 4)}/b`, `${second.slice(0, 4)}/c`]);
    expect(tracker.first()?.request.toolCallId).toBe('a');
    expect(
      changes.map((change) => [change.count, change.added.map((approval) => approval.request.toolCallId)]),
    ).toEqual([
      [2, ['a', 'b']],
      [3, ['c']],
    ]);
  });

  it('drops calls a person decided, a stop cancelled, a timeout ended or a deleted chat took with it', () => {
    const [a, b, c] = [services.chats.create().id, services.chats.create().id, services.chats.create().id];
    services.approvals.pending.add(a, 'e', [requestFor(writeFile, 'w1')]);
    services.approvals.pending.add(b, 'e', [requestFor(writeFile, 'w2'), requestFor(fetchPage, 'f2')]);
    services.approvals.pending.add(c, 'e', [requestFor(fetchPage, 'f3')]);
    changes = [];

    services.approvals.pending.submit(a, [{ toolCallId: 'w1', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }]);
    expect(tracker.count()).toBe(3);
    services.approvals.pending.cancelAll(b);
    expect(tracker.count()).toBe(1);
    services.chats.delete(c);
    expect(tracker.count()).toBe(0);
    expect(changes).toEqual([
      { count: 3, added: [] },
      { count: 1, added: [] },
      { count: 0, added: [] },
    ]);

    services.approvals.pending.add(a, 'e2', [requestFor(writeFile, 'late')]);
    expect(tracker.count()).toBe(1);
    vi.advanceTimersByTime(300_000 + 1);
    expect(tracker.count()).toBe(0);
  });

  it('starts from the calls that survived a restart', () => {
    const chat = services.chats.create().id;
    services.approvals.pending.add(chat, 'e', [requestFor(writeFile, 'kept')]);
    stop();
    start();
    expect(tracker.count()).toBe(1);
    expect(tracker.first()).toMatchObject({
      chatId: chat,
      request: { toolCallId: 'kept', serverName: 'Files', toolName: 'write_file' },
    });
    expect(changes).toEqual([]);
  });

  it('ignores a call it already counts, and stops following events once disposed', () => {
    const chat = services.chats.create().id;
    const [approval] = services.approvals.pending.add(chat, 'e', [requestFor(writeFile, 'x')]);
    services.events.emit('approvals.onDidChange', {
      kind: 'pending',
      chatId: chat,
      approvals: [approval as NonNullable<typeof approval>],
    });
    expect(tracker.count()).toBe(1);
    expect(changes).toHaveLength(1);
    tracker.dispose();
    services.approvals.pending.cancelAll(chat);
    expect(changes).toHaveLength(1);
  });

  it('keeps telling the other listeners when one throws', () => {
    const errors: unknown[] = [];
    const own = createApprovalTracker({
      approvals: services.approvals.pending.onDidChange,
      chats: services.chats.onDidChange,
      initial: () => [],
      onError: (error) => errors.push(error),
    });
    const seen: number[] = [];
    own.onDidChange(() => {
      throw new Error('listener broke');
    });
    own.onDidChange((change) => seen.push(change.count));
    services.approvals.pending.add(services.chats.create().id, 'e', [requestFor(writeFile, 'y')]);
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(1);
    own.dispose();
  });
});
