import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../shared/messages';
import { createTaskCallStatus, type TaskCallStatusDependencies } from './task-call-status';

const place = {
  chatId: 'chat-1',
  messageId: 'message-1',
  exchangeId: 'exchange-1',
  toolCallId: 'call-1',
  serverName: 'Files',
  toolName: 'write_report',
};

/** A task call's block in a stored reply, and what is written and announced about it. */
function recorder(): { deps: TaskCallStatusDependencies; written: string[]; errors: unknown[]; open: boolean } {
  const written: string[] = [];
  const errors: unknown[] = [];
  let stored = {
    id: place.messageId,
    chatId: place.chatId,
    role: 'assistant',
    reply: {
      turns: [
        {
          toolCalls: [
            { toolCallId: place.toolCallId, serverName: 'Files', toolName: 'write_report', status: 'running' },
          ],
        },
      ],
    },
  } as unknown as ChatMessage;
  const state = {
    written,
    errors,
    open: true,
    deps: {
      messages: {
        get: () => stored,
        replace: (message: ChatMessage) => {
          stored = message;
          written.push('block');
        },
      },
      audit: {
        recordTask: ({ event }: { event: string }) => void written.push(`task ${event}`),
        recordToolResult: () => void written.push('result'),
      },
      followEnded: () => void written.push('no longer followed'),
      announce: () => void written.push('announced'),
      onError: (error: unknown) => void errors.push(error),
      open: () => state.open,
    } as unknown as TaskCallStatusDependencies,
  };
  return state;
}

describe('what a task call records', () => {
  it('writes its task rows, its block and its end while the services run', () => {
    const test = recorder();
    const status = createTaskCallStatus(test.deps, place, { startedRowWritten: false, durationMs: () => 5 });
    status.changed({ taskId: 't1', status: 'working' });
    status.ended({ result: { isError: false, content: [], sizeBytes: 0, forModel: { text: '', truncated: false } } });
    expect(test.written).toEqual([
      'task started',
      'block',
      'announced',
      'block',
      'no longer followed',
      'result',
      'announced',
    ]);
    expect(test.errors).toEqual([]);
  });

  it('writes nothing once the services closed: a state or an end that comes later leaves the task followed', () => {
    const test = recorder();
    const status = createTaskCallStatus(test.deps, place, { startedRowWritten: false, durationMs: () => 5 });
    status.changed({ taskId: 't1', status: 'working' });
    test.written.length = 0;
    // The app quits while the task's answer is on its way (the database is closed by then).
    test.open = false;
    status.changed({ taskId: 't1', status: 'completed' });
    status.ended({ error: new Error('The connection closed before the server answered.') });
    expect(test.written).toEqual([]);
    expect(test.errors).toEqual([]);
  });
});
