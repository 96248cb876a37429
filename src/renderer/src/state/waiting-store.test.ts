import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildWorkbenchApi, type WorkbenchTransport } from '../../../shared/api';
import type { PendingApproval } from '../../../shared/approval';
import type { Envelope } from '../../../shared/errors';
import type {
  ElicitationFormView,
  SamplingRequestView,
  ServerRequestsChange,
} from '../../../shared/server-request-views';
import { afterListing, sameRequests } from './waiting-requests';
import { inboxLabel } from '../../../shared/waiting';
import { REQUESTS_LOOK_MS, WaitingStore } from './waiting-store';

const CHAT = '00000000-0000-4000-8000-000000000001';
const HELD = { heldElsewhere: { pid: 4242, process: 'workbench chat' } };

const form = (n: number, elsewhere = false): ElicitationFormView => ({
  id: `00000000-0000-4000-8000-${String(100 + n).padStart(12, '0')}`,
  kind: 'elicitation',
  mode: 'form',
  serverName: 'Everything',
  chatId: null,
  createdAt: n,
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  ...(elsewhere ? HELD : {}),
});

const sampling = (n: number, stage: 'request' | 'answer'): SamplingRequestView => ({
  id: `00000000-0000-4000-8000-${String(200 + n).padStart(12, '0')}`,
  kind: 'sampling',
  stage,
  serverName: 'Everything',
  chatId: null,
  createdAt: n,
  messages: [{ role: 'user', text: 'a haiku' }],
  systemPrompt: null,
  maxTokens: 50,
  temperature: null,
  modelPreferences: null,
  model: null,
  budget: { used: 0, limit: 1000 },
  answer: stage === 'answer' ? { text: 'A haiku.', model: 'fake', stopReason: 'endTurn', outputTokens: 3 } : null,
  ...HELD,
});

const call: PendingApproval = {
  chatId: CHAT,
  exchangeId: null,
  createdAt: 1,
  expiresAt: null,
  request: {
    toolCallId: 'call-1',
    serverName: 'Files',
    toolName: 'write_file',
    args: {},
    definitionHash: 'a'.repeat(64),
    decision: { outcome: 'ask', reason: 'Asks before every tool call' },
  } as never,
};

/**
 * A transport whose server requests are what `listed` holds now — those of another process change there without an
 * event, as a `workbench chat`'s do — with a hand to push this process's events.
 */
function fakeTransport(): {
  transport: WorkbenchTransport;
  listed: {
    requests: (ElicitationFormView | SamplingRequestView)[];
    approvals: PendingApproval[];
    /** When set, the next `approvals.pending` answers only once this is called (a listing on its way). */
    hold?: Promise<void>;
  };
  push(event: string, payload: unknown): void;
  lists: { count: number };
} {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const listed: {
    requests: (ElicitationFormView | SamplingRequestView)[];
    approvals: PendingApproval[];
    hold?: Promise<void>;
  } = { requests: [], approvals: [call] };
  const lists = { count: 0 };
  const transport: WorkbenchTransport = {
    async invoke(method): Promise<Envelope> {
      if (method === 'approvals.pending') {
        const approvals = [...listed.approvals];
        const hold = listed.hold;
        listed.hold = undefined;
        await hold;
        return { ok: true, value: { approvals } };
      }
      if (method === 'serverRequests.list') {
        lists.count += 1;
        return { ok: true, value: { requests: [...listed.requests] } };
      }
      return { ok: false, error: { code: 'unknown_method', message: method } };
    },
    subscribe(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  return {
    transport,
    listed,
    lists,
    push: (event, payload) => listeners.get(event)?.forEach((listener) => listener(payload)),
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the count of what waits', () => {
  it("counts the tool calls and the servers' requests, and follows what another process holds without an event", async () => {
    const { transport, listed, lists } = fakeTransport();
    const store = new WaitingStore(buildWorkbenchApi(transport));
    const stop = store.follow();
    await store.load();
    expect(store.getSnapshot()).toMatchObject({ total: 1, requests: [] });

    // A `workbench chat` starts holding a sampling request: no event comes; the next listing brings it.
    listed.requests = [sampling(1, 'request')];
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot().total).toBe(2);
    expect(store.getSnapshot().requests.map((item) => item.heldElsewhere?.pid)).toEqual([4242]);
    // Nothing changed: the same snapshot (no render for a listing every second).
    const before = store.getSnapshot();
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot()).toBe(before);

    // Answered there: it leaves the count.
    listed.requests = [];
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot()).toMatchObject({ total: 1, requests: [] });

    stop();
    const count = lists.count;
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS * 3);
    expect(lists.count).toBe(count);
  });

  it('follows the tool calls another process holds (a `workbench chat`) without an event', async () => {
    const { transport, listed } = fakeTransport();
    const store = new WaitingStore(buildWorkbenchApi(transport));
    const stop = store.follow();
    await store.load();
    expect(store.getSnapshot().total).toBe(1);

    // The terminal's model asks for a call: it waits there, and the app hears nothing; the next listing brings it.
    const elsewhere: PendingApproval = {
      ...call,
      createdAt: 0,
      request: { ...call.request, toolCallId: 'call-cli' },
    };
    listed.approvals = [call, elsewhere];
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot()).toMatchObject({ total: 2, byChat: new Map([[CHAT, 2]]), oldest: elsewhere });
    const before = store.getSnapshot();
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot()).toBe(before);

    // Answered in the terminal: it leaves the count.
    listed.approvals = [call];
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    expect(store.getSnapshot()).toMatchObject({ total: 1, oldest: call });
    stop();
  });

  it('keeps a call resolved here while a listing asked before was on its way', async () => {
    const { transport, listed, push } = fakeTransport();
    const store = new WaitingStore(buildWorkbenchApi(transport));
    store.follow();
    await store.load();
    let answer = (): void => {};
    listed.hold = new Promise<void>((resolve) => (answer = resolve));
    await vi.advanceTimersByTimeAsync(REQUESTS_LOOK_MS);
    // Decided here while the listing, which still has it, is on its way.
    push('approvals.onDidChange', {
      kind: 'resolved',
      chatId: CHAT,
      resolutions: [{ chatId: CHAT, toolCallId: 'call-1', outcome: 'deny', decidedBy: 'user' }],
    });
    expect(store.getSnapshot().total).toBe(0);
    listed.approvals = [];
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getSnapshot().total).toBe(0);
  });

  it('counts a request held here from its event at once', async () => {
    const { transport, push } = fakeTransport();
    const store = new WaitingStore(buildWorkbenchApi(transport));
    store.follow();
    await store.load();
    const here = form(1);
    push('serverRequests.onDidChange', { kind: 'waiting', request: here } satisfies ServerRequestsChange);
    expect(store.getSnapshot().total).toBe(2);
    push('serverRequests.onDidChange', { kind: 'resolved', request: here } satisfies ServerRequestsChange);
    expect(store.getSnapshot().total).toBe(1);
  });

  it('says the count in words', () => {
    expect(inboxLabel(1)).toBe('1 request waits for your answer');
    expect(inboxLabel(3)).toBe('3 requests wait for your answer');
  });
});

describe('a listing of the requests', () => {
  it('is the truth as of its asking: an event that arrived meanwhile is applied over it', () => {
    const here = form(1);
    // Asked before `here` started waiting and answered after: `here` stays.
    expect(afterListing([here], [sampling(2, 'request')], [{ kind: 'waiting', request: here }])).toEqual([
      sampling(2, 'request'),
      here,
    ]);
    // Asked before `here` was resolved: it does not come back.
    expect(afterListing([], [here], [{ kind: 'resolved', request: here }])).toEqual([]);
    // What another process holds leaves, and its next stage replaces it.
    expect(afterListing([form(3, true), sampling(2, 'request')], [sampling(2, 'answer')], [])).toEqual([
      sampling(2, 'answer'),
    ]);
  });

  it('changes nothing when the same requests wait at the same stages', () => {
    const current = [form(1), sampling(2, 'request')];
    expect(afterListing(current, [sampling(2, 'request'), form(1)], [])).toBe(current);
    expect(sameRequests([sampling(2, 'request')], [sampling(2, 'answer')])).toBe(false);
    expect(sameRequests([form(1)], [form(1, true)])).toBe(false);
  });
});
