import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolCallRecord } from '../../shared/messages';
import { conversationOf } from './history';
import { toolResultFor, USER_DENIED_TEXT } from './tool-results';

const chatId = '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1';
const base = { chatId, exchangeId: 'e1', createdAt: 1 };
const record = (status: ToolCallRecord['status'], extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  toolCallId: `id-${status}`,
  serverName: 'Files',
  toolName: 'write_file',
  args: { path: 'a' },
  modelCall: { id: `call-${status}`, name: 'Files__write_file', arguments: { kind: 'parsed', value: { path: 'a' } } },
  status,
  ...extra,
});

describe('the clean conversation', () => {
  it('sends user words, turns and one result per call; never approvals, notices or errors', () => {
    const messages: ChatMessage[] = [
      { ...base, id: '1', seq: 1, role: 'user', text: 'write a' },
      {
        ...base,
        id: '2',
        seq: 2,
        role: 'assistant',
        providerId: 'p',
        model: 'm',
        reply: {
          timestamp: 1,
          turns: [
            {
              message: 'Writing.',
              toolCalls: [
                record('denied', { decision: { outcome: 'deny', actor: 'user', reason: 'x', userReason: 'no' } }),
              ],
            },
          ],
        },
      },
      {
        ...base,
        id: '3',
        seq: 3,
        role: 'approval',
        toolCallApprovals: [{ toolCallId: 'id-denied', decision: 'TOOL_CALL_DECISION_DENY', reason: 'no' }],
      },
      {
        ...base,
        id: '4',
        seq: 4,
        role: 'assistant',
        providerId: 'p',
        model: 'm',
        reply: { timestamp: 2, turns: [{ message: 'Understood.' }, {}] },
      },
      { ...base, id: '5', seq: 5, role: 'system', kind: 'stopped', text: 'You stopped this reply.' },
      { ...base, id: '6', seq: 6, role: 'error', error: { code: 'llm_server_error', message: 'boom' } },
      { ...base, exchangeId: 'e2', id: '7', seq: 7, role: 'user', text: 'again' },
      { ...base, exchangeId: 'e3', id: '8', seq: 8, role: 'user', text: 'and again' },
    ];
    expect(conversationOf(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'write a' }] },
      { role: 'assistant', text: 'Writing.', toolCalls: [record('denied').modelCall] },
      {
        role: 'tool',
        results: [
          {
            toolCallId: 'call-denied',
            toolName: 'Files__write_file',
            isError: true,
            content: [{ type: 'text', text: `${USER_DENIED_TEXT}. The user's reason: no` }],
          },
        ],
      },
      { role: 'assistant', text: 'Understood.', toolCalls: [] },
      // Two user messages in a row (the exchange between them failed) are joined: providers want turns to alternate.
      {
        role: 'user',
        content: [
          { type: 'text', text: 'again' },
          { type: 'text', text: 'and again' },
        ],
      },
    ]);
  });

  it('tells the model what became of every call, in words it can act on', () => {
    const words = (value: ToolCallRecord): string => JSON.stringify(toolResultFor(value).content);
    expect(words(record('denied', { decision: { outcome: 'deny', actor: 'user', reason: 'x' } }))).toContain(
      USER_DENIED_TEXT,
    );
    expect(
      words(
        record('denied', {
          decision: {
            outcome: 'deny',
            actor: 'policy',
            reason: 'Denied by your rule #1: Files write_* when /path matches /etc/**',
          },
        }),
      ),
    ).toContain('Denied by policy');
    expect(words(record('timeout'))).toMatch(/timed out/);
    expect(words(record('cancelled'))).toMatch(/stopped the chat/);
    expect(words(record('running'))).toMatch(/closed while this tool call was running/);
    expect(words(record('error', { error: 'There is no tool named "x".' }))).toContain('no tool named');
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBOR' };
    const ran = toolResultFor(
      record('success', {
        decision: { outcome: 'allow', actor: 'user', reason: 'once', edited: true },
        args: { path: 'b' },
        result: {
          isError: false,
          content: [{ type: 'text', text: 'ok' }, image],
          sizeBytes: 10,
          forModel: { text: 'ok', truncated: false },
        },
      }),
    );
    expect(ran.isError).toBe(false);
    expect(ran.content).toEqual([
      {
        type: 'text',
        text: 'Note: the user edited the arguments before allowing this call. It ran with: {"path":"b"}',
      },
      { type: 'text', text: 'ok' },
      image,
    ]);
  });

  it('sends the resources the person attached after the message, each marked with its server and URI', () => {
    const messages: ChatMessage[] = [
      {
        ...base,
        id: '1',
        seq: 1,
        role: 'user',
        text: 'summarise this',
        attachments: [
          {
            server: 'Everything',
            uri: 'demo://resource/static/document/a.md',
            name: 'a.md',
            mimeType: 'text/markdown',
            text: '# A',
          },
          { server: 'Everything', uri: 'demo://big', name: 'big', text: 'start', truncated: true },
        ],
      },
    ];
    expect(conversationOf(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'summarise this' },
          {
            type: 'text',
            text: '<resource server="Everything" uri="demo://resource/static/document/a.md" type="text/markdown">\n# A\n</resource>',
          },
          {
            type: 'text',
            text: '<resource server="Everything" uri="demo://big">\nstart\n[cut: the resource is longer]\n</resource>',
          },
        ],
      },
    ]);
  });
});
