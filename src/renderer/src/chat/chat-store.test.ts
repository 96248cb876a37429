import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildWorkbenchApi, type WorkbenchTransport } from '../../../shared/api';
import type { ToolCallRequest } from '../../../shared/approval';
import type { Envelope } from '../../../shared/errors';
import type { AssistantChatMessage, ChatMessage, ChatStreamEvent } from '../../../shared/messages';
import { ChatStore, phaseOf, TEXT_FLUSH_MS, trimPage } from './chat-store';
import { viewOf, type ExchangeRow } from './timeline';

const CHAT = '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10';

const request = (id: string): ToolCallRequest => ({
  toolCallId: id,
  serverName: 'Files',
  toolName: 'write_file',
  args: { path: `${id}.txt` },
  definitionHash: 'h',
  inputSchema: { type: 'object' },
  decision: { outcome: 'ask', source: { kind: 'default' }, reason: 'asks', definitionChanged: false },
});

const waitingReply = (ids: string[]): AssistantChatMessage => ({
  id: 'r1',
  chatId: CHAT,
  exchangeId: 'x1',
  seq: 2,
  createdAt: 2,
  role: 'assistant',
  providerId: 'p',
  model: 'm',
  end: 'waiting-approval',
  reply: {
    timestamp: 0,
    turns: [
      {
        toolCalls: ids.map((id) => ({
          toolCallId: id,
          serverName: 'Files',
          toolName: 'write_file',
          args: { path: `${id}.txt` },
          modelCall: { id, name: 'Files__write_file', arguments: { kind: 'parsed' as const, value: {} } },
          status: 'pending' as const,
          decision: { outcome: 'ask' as const, actor: 'policy' as const, reason: 'asks' },
        })),
      },
    ],
    pendingToolCalls: ids.map(request),
  },
});

const user: ChatMessage = { id: 'u1', chatId: CHAT, exchangeId: 'x1', seq: 1, createdAt: 1, role: 'user', text: 'go' };

/** A transport that answers `chat.messages` with `messages` and records `chat.send` calls; `push` sends events. */
function fake(messages: ChatMessage[], activity: 'idle' | 'waiting-approval' | 'generating' = 'idle') {
  const sent: unknown[] = [];
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let failNext: string | null = null;
  let failDetails: unknown;
  const transport: WorkbenchTransport = {
    async invoke(method, input): Promise<Envelope> {
      switch (method) {
        case 'chat.messages':
          return { ok: true, value: { messages, hasMore: false, activity: { status: activity, exchangeId: 'x1' } } };
        case 'approvals.pending':
          return { ok: true, value: { approvals: [] } };
        case 'chat.send': {
          sent.push(input);
          if (failNext) {
            const message = failNext;
            failNext = null;
            return {
              ok: false,
              error: { code: 'invalid_input', message, ...(failDetails === undefined ? {} : { details: failDetails }) },
            };
          }
          return {
            ok: true,
            value: {
              exchangeId: 'x1',
              message: {
                id: `a${sent.length}`,
                chatId: CHAT,
                exchangeId: 'x1',
                seq: 10 + sent.length,
                createdAt: 3,
                role: 'approval',
                toolCallApprovals: (input as { message: { toolCallApprovals: [] } }).message.toolCallApprovals,
              },
            },
          };
        }
        default:
          return { ok: false, error: { code: 'unknown_method', message: method } };
      }
    },
    subscribe(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
  };
  return {
    api: buildWorkbenchApi(transport),
    sent,
    failNext: (message: string, details?: unknown) => {
      failNext = message;
      failDetails = details;
    },
    push: (event: ChatStreamEvent) => listeners.get('chat.onDidStream')?.forEach((listener) => listener(event)),
  };
}

async function started(messages: ChatMessage[], activity?: 'idle' | 'waiting-approval' | 'generating') {
  const transport = fake(messages, activity);
  const store = new ChatStore(transport.api, CHAT);
  store.start();
  await vi.waitFor(() => expect(store.getSnapshot().status).toBe('ready'));
  return { store, ...transport };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ChatStore approvals', () => {
  it('sends the approval message only when every waiting call has an answer, with edits and reasons', async () => {
    const { store, sent } = await started([user, waitingReply(['c1', 'c2'])], 'waiting-approval');
    expect(phaseOf(store.getSnapshot())).toBe('waiting-approval');
    store.edit('c1', { ok: true, args: { path: 'edited.txt' } });
    store.decide('c1', { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
    expect(sent).toHaveLength(0);
    store.undo('c1');
    expect(store.getSnapshot().drafts.size).toBe(0);
    // Undo keeps the edit: allowing again sends it.
    store.decide('c1', { decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' });
    store.edit('c2', { ok: true, args: { path: 'ignored' } });
    store.decide('c2', { decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      chatId: CHAT,
      message: {
        role: 'approval',
        toolCallApprovals: [
          { toolCallId: 'c1', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION', editedArgs: { path: 'edited.txt' } },
          { toolCallId: 'c2', decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' },
        ],
      },
    });
  });

  it("a refused edit puts its card back to undecided with the rule's words; the other answers stay; nothing says it is sending", async () => {
    const { store, sent, failNext } = await started([user, waitingReply(['c1', 'c2'])], 'waiting-approval');
    const rule =
      "Denied by your organisation's policy, rule 'no-secrets': Files write_file when /path matches **/secret*";
    failNext(
      `The approval was not applied: Files.write_file has edited arguments that a deny rule refuses (${rule}); allow the call as it is, edit it again, or deny it.`,
      {
        problems: [
          {
            toolCallId: 'c1',
            tool: 'Files.write_file',
            problem: 'has edited arguments that a deny rule refuses',
            deniedBy: { source: { kind: 'managed-deny-rule', ruleId: 'no-secrets' }, reason: rule },
          },
        ],
      },
    );
    store.edit('c1', { ok: true, args: { path: 'secret.txt' } });
    store.decide('c1', { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
    store.decide('c2', { decision: 'TOOL_CALL_DECISION_DENY' });
    await vi.waitFor(() => expect(store.getSnapshot().actionError).not.toBeNull());
    const state = store.getSnapshot();
    expect(sent).toHaveLength(1);
    expect(state.submitting).toBe(false);
    // Not "Approved once": the refused call waits again, its card saying which rule refused the edit.
    expect(state.drafts.has('c1')).toBe(false);
    expect(state.refusals.get('c1')).toContain(rule);
    expect(state.drafts.get('c2')).toEqual({ decision: 'TOOL_CALL_DECISION_DENY' });
    expect(state.actionError).toContain('Files.write_file');
    expect(state.actionError).not.toContain('c1');
    // Answered again, the refusal goes, and the message is sent.
    store.decide('c1', { decision: 'TOOL_CALL_DECISION_DENY' });
    expect(store.getSnapshot().refusals.has('c1')).toBe(false);
    await vi.waitFor(() => expect(sent).toHaveLength(2));
  });

  it('Allow all answers only the undecided calls; a refused message keeps the answers and says why', async () => {
    const { store, sent, failNext } = await started([user, waitingReply(['c1', 'c2', 'c3'])], 'waiting-approval');
    failNext('c1: the edited arguments do not fit the tool');
    store.decide('c1', { decision: 'TOOL_CALL_DECISION_DENY' });
    store.decideAll('TOOL_CALL_DECISION_ALLOW_ONCE');
    await vi.waitFor(() => expect(store.getSnapshot().actionError).toMatch(/not sent: c1/));
    const toolCallApprovals = (sent[0] as { message: { toolCallApprovals: { decision: string }[] } }).message
      .toolCallApprovals;
    expect(toolCallApprovals.map((approval) => approval.decision)).toEqual([
      'TOOL_CALL_DECISION_DENY',
      'TOOL_CALL_DECISION_ALLOW_ONCE',
      'TOOL_CALL_DECISION_ALLOW_ONCE',
    ]);
    expect(store.getSnapshot().drafts.size).toBe(3);
    expect(store.getSnapshot().submitting).toBe(false);
  });
});

describe('ChatStore edits', () => {
  it("an invalid edit blocks every allow of its call (one answer or Allow all), says why, and never falls back to the model's arguments", async () => {
    const { store, sent } = await started([user, waitingReply(['c1', 'c2'])], 'waiting-approval');
    store.edit('c1', { ok: true, args: { path: 'mine.txt' } });
    store.edit('c1', { ok: false, error: 'Not valid JSON' });
    expect(store.allowBlocked('c1')).toBe('Fix the arguments first: Not valid JSON');
    expect(store.allowBlocked('c2')).toBeNull();
    expect(store.decide('c1', { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' })).toBe(false);
    expect(store.decide('c1', { decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' })).toBe(false);
    expect(store.decideAll('TOOL_CALL_DECISION_ALLOW_ONCE')).toBe(false);
    expect(store.getSnapshot().drafts.size).toBe(0);
    expect(store.getSnapshot().actionError).toMatch(
      /Nothing was allowed: the edited arguments of write_file are not valid/,
    );
    expect(store.getSnapshot().focusRequest?.toolCallId).toBe('c1');
    expect(sent).toHaveLength(0);

    // Deny stays available; the other call can still be allowed on its own.
    expect(store.decide('c2', { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' })).toBe(true);
    expect(store.decide('c1', { decision: 'TOOL_CALL_DECISION_DENY' })).toBe(true);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect((sent[0] as { message: { toolCallApprovals: unknown[] } }).message.toolCallApprovals).toEqual([
      { toolCallId: 'c1', decision: 'TOOL_CALL_DECISION_DENY' },
      { toolCallId: 'c2', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
    ]);
  });

  it("Allow all sends each call's edit; Deny all is never blocked by an invalid edit", async () => {
    const { store, sent } = await started([user, waitingReply(['c1', 'c2', 'c3'])], 'waiting-approval');
    store.edit('c1', { ok: true, args: { path: 'one.txt' } });
    store.edit('c3', { ok: true, args: { path: 'three.txt' } });
    store.edit('c3', null);
    expect(store.decideAll('TOOL_CALL_DECISION_ALLOW_ONCE')).toBe(true);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect((sent[0] as { message: { toolCallApprovals: unknown[] } }).message.toolCallApprovals).toEqual([
      { toolCallId: 'c1', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', editedArgs: { path: 'one.txt' } },
      { toolCallId: 'c2', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
      { toolCallId: 'c3', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
    ]);

    const second = await started([user, waitingReply(['d1', 'd2'])], 'waiting-approval');
    second.store.edit('d1', { ok: false, error: 'Missing required property: path.' });
    expect(second.store.decideAll('TOOL_CALL_DECISION_DENY')).toBe(true);
    await vi.waitFor(() => expect(second.sent).toHaveLength(1));
    expect(
      (second.sent[0] as { message: { toolCallApprovals: { decision: string }[] } }).message.toolCallApprovals.map(
        (approval) => approval.decision,
      ),
    ).toEqual(['TOOL_CALL_DECISION_DENY', 'TOOL_CALL_DECISION_DENY']);
  });
});

describe('ChatStore streaming', () => {
  it('applies text deltas together at most every TEXT_FLUSH_MS, and before any other event', async () => {
    const streaming: AssistantChatMessage = { ...waitingReply([]), end: undefined, reply: { timestamp: 0, turns: [] } };
    const { store, push } = await started([user, streaming], 'generating');
    vi.useFakeTimers();
    const text = (delta: string): ChatStreamEvent => ({
      kind: 'text',
      chatId: CHAT,
      exchangeId: 'x1',
      messageId: 'r1',
      turn: 0,
      delta,
    });
    const shown = (): string | undefined =>
      viewOf(store.getSnapshot().timeline.rows[0] as ExchangeRow).turns[0]?.message;
    push(text('Hel'));
    push(text('lo'));
    expect(shown()).toBeUndefined();
    vi.advanceTimersByTime(TEXT_FLUSH_MS);
    expect(shown()).toBe('Hello');
    push(text(' world'));
    push({ kind: 'activity', chatId: CHAT, activity: { status: 'idle', exchangeId: null } });
    expect(shown()).toBe('Hello world');
    expect(phaseOf(store.getSnapshot())).toBe('idle');
    store.dispose();
  });
});

describe('trimPage', () => {
  it('drops the oldest exchange of a page that may be cut, unless the page is all one exchange', () => {
    const messages = [user, waitingReply([]), { ...user, id: 'u2', exchangeId: 'x2', seq: 3 }];
    expect(trimPage(messages, true).messages.map((message) => message.id)).toEqual(['u2']);
    expect(trimPage(messages, false).messages).toHaveLength(3);
    expect(trimPage(messages.slice(0, 2), true).messages).toHaveLength(2);
  });
});

describe("a waiting card's kept state", () => {
  it('is kept by the store while its call waits (the card may unmount and mount again), and forgotten after', async () => {
    const { store, push } = await started([user, waitingReply(['c1', 'c2'])], 'waiting-approval');
    store.cardStates.set('c1', 'reason', 'not that file');
    store.cardStates.set('c2', 'editing', true);
    // Another event of the same exchange: both still wait.
    push({ kind: 'message', chatId: CHAT, exchangeId: 'x1', message: waitingReply(['c1', 'c2']) });
    expect(store.cardStates.get('c1', 'reason')).toBe('not that file');
    expect(store.cardStates.get('c2', 'editing')).toBe(true);
    // c1 was decided elsewhere: only c2 waits.
    push({ kind: 'message', chatId: CHAT, exchangeId: 'x1', message: waitingReply(['c2']) });
    expect(store.cardStates.has('c1', 'reason')).toBe(false);
    expect(store.cardStates.get('c2', 'editing')).toBe(true);
    push({ kind: 'message', chatId: CHAT, exchangeId: 'x1', message: { ...waitingReply([]), end: 'stop' } });
    expect(store.cardStates.size).toBe(0);
  });
});
