import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../shared/approval';
import { answersFor } from './approvals';

const call = (chatId: string, toolCallId: string): PendingApproval =>
  ({
    chatId,
    exchangeId: 'x',
    createdAt: 0,
    expiresAt: null,
    request: { toolCallId, serverName: 'Files', toolName: 'write_file', args: {} },
  }) as unknown as PendingApproval;

describe('workbench approvals allow|deny', () => {
  const waiting = [call('a', 'call-1'), call('a', 'call-2'), call('b', 'other-3')];

  it('answers the calls named by id or unique prefix, one message per chat', () => {
    expect(answersFor(waiting, ['call-1', 'call-2', 'oth'], 'deny', 'no')).toEqual([
      {
        chatId: 'a',
        approvals: [
          { toolCallId: 'call-1', decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' },
          { toolCallId: 'call-2', decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' },
        ],
      },
      { chatId: 'b', approvals: [{ toolCallId: 'other-3', decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' }] },
    ]);
  });

  it('refuses an unknown or ambiguous id, and a chat whose other waiting calls are not named', () => {
    expect(() => answersFor(waiting, ['zzz'], 'allow')).toThrow("No tool call waits by the id 'zzz'");
    expect(() => answersFor(waiting, ['call'], 'allow')).toThrow("The id 'call' fits 2 waiting calls");
    expect(() => answersFor(waiting, ['call-1'], 'allow')).toThrow(
      'The calls of one chat are answered together: also name Files.write_file (call-2).',
    );
  });
});
