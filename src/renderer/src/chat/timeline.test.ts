import { describe, expect, it } from 'vitest';
import type { AssistantChatMessage, ChatMessage, ToolCallRecord } from '../../../shared/messages';
import {
  applyStreamEvent,
  dropRows,
  prependMessages,
  restoreRows,
  timelineOf,
  upsertMessage,
  viewOf,
  type ExchangeRow,
} from './timeline';

const CHAT = '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10';
let seq = 0;
const base = (exchangeId: string) => ({ id: `m${++seq}`, chatId: CHAT, exchangeId, seq, createdAt: seq });
const user = (exchangeId: string, text: string): ChatMessage => ({ ...base(exchangeId), role: 'user', text });
const reply = (exchangeId: string, text: string, extra: Partial<AssistantChatMessage> = {}): AssistantChatMessage => ({
  ...base(exchangeId),
  role: 'assistant',
  providerId: 'demo',
  model: 'demo',
  reply: { timestamp: 0, turns: [{ message: text }] },
  end: 'stop',
  ...extra,
});
const call = (id: string, status: ToolCallRecord['status']): ToolCallRecord => ({
  toolCallId: id,
  serverName: 'Files',
  toolName: 'write_file',
  args: { path: 'a.txt' },
  modelCall: { id, name: 'Files__write_file', arguments: { kind: 'parsed', value: { path: 'a.txt' } } },
  status,
});

describe('timeline', () => {
  it('makes one row per exchange, whatever replies and approvals it holds', () => {
    const first = reply('x1', 'Let me write it.', { end: 'waiting-approval' });
    const messages: ChatMessage[] = [
      user('x1', 'write a file'),
      first,
      {
        ...base('x1'),
        role: 'approval',
        toolCallApprovals: [{ toolCallId: 'c1', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }],
      },
      reply('x1', 'Done.'),
      user('x2', 'thanks'),
      reply('x2', 'You are welcome.'),
    ];
    const timeline = timelineOf(messages);
    expect(timeline.rows.map((row) => row.exchangeId)).toEqual(['x1', 'x2']);
    const view = viewOf(timeline.rows[0] as ExchangeRow);
    expect(view.user?.text).toBe('write a file');
    expect(view.turns.map((turn) => turn.message)).toEqual(['Let me write it.', 'Done.']);
    expect(view.replies).toHaveLength(2);
  });

  it('applies text deltas and tool calls to the reply, keeping other rows as they were', () => {
    let timeline = timelineOf([user('a', 'hi'), reply('a', 'ok'), user('b', 'more')]);
    const streaming = reply('b', '', { end: undefined, reply: { timestamp: 0, turns: [] } });
    timeline = upsertMessage(timeline, streaming);
    const before = timeline.rows[0];
    timeline = applyStreamEvent(timeline, {
      kind: 'text',
      chatId: CHAT,
      exchangeId: 'b',
      messageId: streaming.id,
      turn: 0,
      delta: 'Hel',
    });
    timeline = applyStreamEvent(timeline, {
      kind: 'text',
      chatId: CHAT,
      exchangeId: 'b',
      messageId: streaming.id,
      turn: 0,
      delta: 'lo',
    });
    timeline = applyStreamEvent(timeline, {
      kind: 'tool-call',
      chatId: CHAT,
      exchangeId: 'b',
      messageId: streaming.id,
      turn: 0,
      call: call('c1', 'running'),
    });
    timeline = applyStreamEvent(timeline, {
      kind: 'tool-call',
      chatId: CHAT,
      exchangeId: 'b',
      messageId: streaming.id,
      turn: 0,
      call: call('c1', 'success'),
    });
    expect(timeline.rows[0]).toBe(before);
    const view = viewOf(timeline.rows[1] as ExchangeRow);
    expect(view.turns[0]?.message).toBe('Hello');
    expect(view.turns[0]?.toolCalls?.map((record) => record.status)).toEqual(['success']);
    expect(view.streaming).toBe(true);
  });

  it('joins an exchange that a page boundary cut in two', () => {
    const messages = [user('a', 'one'), reply('a', 'r1'), reply('a', 'r2'), user('b', 'two')];
    const newer = timelineOf(messages.slice(2));
    const { timeline, added } = prependMessages(newer, messages.slice(0, 2));
    expect(timeline.rows.map((row) => row.exchangeId)).toEqual(['a', 'b']);
    expect(timeline.rows[0]?.messages).toHaveLength(3);
    expect(added).toBe(0);
    expect(timeline.index.get('b')).toBe(1);
  });

  it('lists the calls that wait for a person', () => {
    const waiting = reply('a', 'Need approval', {
      end: 'waiting-approval',
      reply: {
        timestamp: 0,
        turns: [{ toolCalls: [call('c1', 'pending')] }],
        pendingToolCalls: [
          {
            ...call('c1', 'pending'),
            definitionHash: 'h',
            inputSchema: {},
            decision: { outcome: 'ask', source: { kind: 'default' }, reason: 'asks', definitionChanged: false },
          },
        ],
      },
    });
    expect([...viewOf(timelineOf([user('a', 'go'), waiting]).rows[0] as ExchangeRow).pendingIds]).toEqual(['c1']);
  });
});

describe('dropped rows', () => {
  it('keep which messages they had, ignore messages for them meanwhile, and come back only whole', () => {
    const x1 = [user('d1', 'first'), reply('d1', 'one')];
    const x2 = [user('d2', 'second'), reply('d2', 'two')];
    const timeline = timelineOf([...x1, ...x2]);
    const dropped = dropRows(timeline, [0]);
    expect(dropped.rows[0]).toEqual({
      exchangeId: 'd1',
      messages: [],
      dropped: { firstSeq: x1[0]?.seq, lastSeq: x1[1]?.seq, count: 2 },
    });
    expect(dropped.rows[1]).toBe(timeline.rows[1]);
    expect(dropRows(dropped, [0])).toBe(dropped);
    // A new version of a dropped row's message waits for the row to load again.
    expect(upsertMessage(dropped, { ...(x1[1] as ChatMessage) })).toBe(dropped);
    // Part of the row is not the row.
    expect(restoreRows(dropped, [x1[1] as ChatMessage])).toBe(dropped);
    const back = restoreRows(dropped, x1);
    expect(back.rows[0]?.messages).toEqual(x1);
    expect(back.rows[0]?.dropped).toBeUndefined();
  });

  it('a dropped first row takes in its older part from a page in front and stays dropped', () => {
    const older = user('d3', 'start');
    const newer = reply('d3', 'end');
    const dropped = dropRows(timelineOf([newer]), [0]);
    const { timeline } = prependMessages(dropped, [older]);
    expect(timeline.rows[0]?.dropped).toEqual({ firstSeq: older.seq, lastSeq: newer.seq, count: 2 });
    expect(restoreRows(timeline, [older, newer]).rows[0]?.messages).toEqual([older, newer]);
  });
});
