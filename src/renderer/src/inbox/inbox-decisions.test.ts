import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../shared/approval';
import type { ServerRequestView } from '../../../shared/server-request-views';
import { ageWords, answersReady, inboxItems, timeLeftWords, type InboxDecision } from './inbox-decisions';

const call = (chatId: string, toolCallId: string, createdAt = 1_000): PendingApproval =>
  ({
    chatId,
    exchangeId: 'x',
    createdAt,
    expiresAt: null,
    request: { toolCallId, serverName: 'Files', toolName: 'write_file', args: {} },
  }) as unknown as PendingApproval;

describe('the inbox', () => {
  it('lists every kind oldest first', () => {
    const request = { id: 'r1', kind: 'elicitation', createdAt: 500, chatId: null } as unknown as ServerRequestView;
    const items = inboxItems([call('a', 't1', 2_000), call('b', 't2', 1_000)], [request]);
    expect(items.map((item) => item.key)).toEqual(['server-request:r1', 'tool-call:b:t2', 'tool-call:a:t1']);
  });

  it("sends a chat's answer only when each of its waiting calls has a decision, and says how many are left", () => {
    const waiting = [call('a', 't1'), call('a', 't2'), call('b', 't3'), call('c', 't4')];
    const decisions = new Map<string, InboxDecision>([
      ['t1', 'TOOL_CALL_DECISION_ALLOW_ONCE'],
      ['t3', 'TOOL_CALL_DECISION_DENY'],
    ]);
    const { ready, undecided } = answersReady(waiting, decisions);
    expect(ready).toEqual([{ chatId: 'b', approvals: [{ toolCallId: 't3', decision: 'TOOL_CALL_DECISION_DENY' }] }]);
    expect([...undecided]).toEqual([['a', 1]]);
    decisions.set('t2', 'TOOL_CALL_DECISION_DENY');
    expect(answersReady(waiting, decisions).ready[0]).toEqual({
      chatId: 'a',
      approvals: [
        { toolCallId: 't1', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
        { toolCallId: 't2', decision: 'TOOL_CALL_DECISION_DENY' },
      ],
    });
  });

  it('says how long an item waited and how long it has left', () => {
    expect(ageWords(0, 12_400)).toBe('waiting 12 s');
    expect(ageWords(0, 185_000)).toBe('waiting 3 min');
    expect(timeLeftWords(null, 0)).toBe('waits until you answer');
    expect(timeLeftWords(30_000, 0)).toBe('times out in 30 s');
    expect(timeLeftWords(250_000, 0)).toBe('times out in 5 min');
  });
});
