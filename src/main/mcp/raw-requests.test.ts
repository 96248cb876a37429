/**
 * The host's raw request path on a 2026-07-28 session (raw-requests.ts; docs/dev/protocol-2026.md#tasks-on-2026-07-28),
 * on a transport whose far end is this test: which answers it takes, which it leaves to the SDK, and what it does with
 * answers nobody waits for. The whole path against a real server: tasks-2026.test.ts.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createRawRequests, RAW_ID_PREFIX, RawConnectionClosed } from './raw-requests';

function setUp(): {
  raw: ReturnType<typeof createRawRequests>;
  transport: Transport;
  sent: JSONRPCMessage[];
  toSdk: unknown[];
  notices: string[];
  answer(message: unknown): void;
} {
  const sent: JSONRPCMessage[] = [];
  const toSdk: unknown[] = [];
  const notices: string[] = [];
  const transport = {
    start: async () => undefined,
    close: async () => transport.onclose?.(),
    send: async (message: JSONRPCMessage) => void sent.push(message),
    // What the SDK's client put there when it connected.
    onmessage: (message: unknown) => void toSdk.push(message),
    onclose: () => void toSdk.push('closed'),
  } as unknown as Transport;
  const raw = createRawRequests(transport.send.bind(transport), (text) => notices.push(text));
  raw.attach(transport);
  return {
    raw,
    transport,
    sent,
    toSdk,
    notices,
    answer: (message) => transport.onmessage?.(message as JSONRPCMessage),
  };
}

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'AI Workbench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};

describe('the raw request path', () => {
  it("carries a progress token only when asked; the server's progress for it comes here, the SDK's goes on", async () => {
    const { raw, sent, toSdk, answer } = setUp();
    const steps: unknown[] = [];
    const call = raw.request('tools/call', { name: 'echo', _meta: envelope }, undefined, (step) => steps.push(step));
    void raw.request('tasks/get', { taskId: 't-1' });
    const token = `${RAW_ID_PREFIX}1`;
    expect((sent[0] as { params: { _meta: unknown } }).params._meta).toEqual({ ...envelope, progressToken: token });
    expect((sent[1] as { params: Record<string, unknown> }).params).toEqual({ taskId: 't-1' });
    const progress = (progressToken: unknown, more: object): unknown => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken, ...more },
    });
    answer(progress(token, { progress: 1, total: 2, message: 'half' }));
    answer(progress(token, { progress: 'not a number' }));
    answer(progress(7, { progress: 3 }));
    answer({ jsonrpc: '2.0', id: token, result: { content: [] } });
    await call;
    // Once answered, a late step of progress is passed over.
    answer(progress(token, { progress: 2, total: 2 }));
    expect(steps).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(toSdk).toEqual([progress(7, { progress: 3 })]);
  });

  it('sends with ids of its own that are never numbers, and takes only its answers; the SDK keeps its own', async () => {
    const { raw, sent, toSdk, answer } = setUp();
    const first = raw.request('tasks/get', { taskId: 't-1' });
    const second = raw.request('tasks/get', { taskId: 't-2' });
    const ids = sent.map((message) => (message as { id: unknown }).id);
    expect(ids).toEqual([`${RAW_ID_PREFIX}1`, `${RAW_ID_PREFIX}2`]);
    // The SDK reads an answer's id as a number: none of ours is one.
    for (const id of ids) expect(Number.isNaN(Number(id))).toBe(true);
    // An answer to the SDK's request 1 goes to the SDK, whatever waits here.
    answer({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}2`, result: { taskId: 't-2', status: 'working' } });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, error: { code: -32602, message: 'no task t-1' } });
    await expect(second).resolves.toEqual({ kind: 'result', result: { taskId: 't-2', status: 'working' } });
    await expect(first).resolves.toEqual({ kind: 'error', error: { code: -32602, message: 'no task t-1' } });
    expect(toSdk).toEqual([{ jsonrpc: '2.0', id: 1, result: { tools: [] } }]);
    // A server's request or notification is the SDK's too, even with an id like ours.
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}9`, method: 'ping' });
    expect(toSdk).toHaveLength(2);
  });

  it('ignores, with a line in the log, an answer to an id nobody waits for and a malformed one', async () => {
    const { raw, toSdk, notices, answer, transport } = setUp();
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}77`, result: { status: 'completed' } });
    const waiting = raw.request('tasks/get', { taskId: 't-1' });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, result: 'not an object' });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, error: { code: 'x' } });
    expect(notices).toEqual([
      `Ignored an answer to the request "${RAW_ID_PREFIX}77", which is not waiting for one (unknown or already answered).`,
      `Ignored a malformed answer to the request "${RAW_ID_PREFIX}1": neither a result object nor an error.`,
      `Ignored a malformed answer to the request "${RAW_ID_PREFIX}1": neither a result object nor an error.`,
    ]);
    // None of them reached the SDK (it would report an unknown id as an error of the session).
    expect(toSdk).toEqual([]);
    // A second answer to one already answered is ignored the same way.
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, result: { taskId: 't-1', status: 'working' } });
    await expect(waiting).resolves.toMatchObject({ kind: 'result' });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, result: { taskId: 't-1', status: 'working' } });
    expect(notices).toHaveLength(4);
    await transport.close();
  });

  it('a session that closes with a request unanswered fails it at once, and every later one; the SDK still hears of it', async () => {
    const { raw, transport, toSdk } = setUp();
    const waiting = raw.request('tasks/get', { taskId: 't-1' });
    await transport.close();
    await expect(waiting).rejects.toBeInstanceOf(RawConnectionClosed);
    expect(raw.closed).toBe(true);
    await expect(raw.request('tasks/cancel', { taskId: 't-1' })).rejects.toBeInstanceOf(RawConnectionClosed);
    expect(toSdk).toEqual(['closed']);
  });

  it('a request given up (its signal aborts) stops waiting and tells the server; its late answer is ignored', async () => {
    const { raw, sent, answer, notices } = setUp();
    const stop = new AbortController();
    const waiting = raw.request('tools/call', { name: 'report' }, stop.signal);
    stop.abort(new Error('Cancelled by the person'));
    await expect(waiting).rejects.toThrow('Cancelled by the person');
    expect(sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: `${RAW_ID_PREFIX}1` },
    });
    answer({ jsonrpc: '2.0', id: `${RAW_ID_PREFIX}1`, result: { content: [] } });
    expect(notices).toHaveLength(1);
  });

  it('a session that closes while a request is still being sent fails that request with its own error, and leaves no unhandled rejection', async () => {
    const { raw, transport } = setUp();
    let sendFails: (error: Error) => void = () => undefined;
    // The transport's send still writing when the connection goes: the answer is refused before anything awaits it.
    const held = createRawRequests(
      () => new Promise<void>((_resolve, reject) => (sendFails = reject)),
      () => undefined,
    );
    held.attach(transport);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const request = held.request('tasks/get', { taskId: 't-1' });
      await transport.close();
      sendFails(new Error('write EPIPE'));
      await expect(request).rejects.toThrow('write EPIPE');
      // Two turns of the event loop: Node reports an unhandled rejection after the microtasks of the turn it happened in.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(raw.closed).toBe(true);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a request given up while it is still being sent (an HTTP POST waiting for its answer) rejects once, handled', async () => {
    const sending: (() => void)[] = [];
    const raw = createRawRequests(
      () => new Promise<void>((resolve) => void sending.push(resolve)),
      () => undefined,
    );
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const stop = new AbortController();
      const waiting = raw.request('tasks/get', { taskId: 't-1' }, stop.signal);
      stop.abort(new Error('Task was cancelled'));
      // Past the turn in which Node reports a rejection that has no handler yet.
      await new Promise((resolve) => setImmediate(resolve));
      for (const sent of sending) sent();
      await expect(waiting).rejects.toThrow('Task was cancelled');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it("learns the envelope from the SDK's first request that carries one", () => {
    const { raw } = setUp();
    expect(raw.envelope()).toBeUndefined();
    raw.observe({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} });
    raw.observe({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } });
    expect(raw.envelope()).toEqual({
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'AI Workbench', version: '1' },
      clientCapabilities: { sampling: {} },
    });
  });
});
