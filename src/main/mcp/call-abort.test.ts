import { describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CallAbort } from './call-abort';

describe('CallAbort', () => {
  it('aborts once: its listeners run once, with an AbortError as the reason when none is given', () => {
    const stop = new CallAbort();
    const listener = vi.fn();
    stop.addEventListener('abort', listener);
    expect(stop.aborted).toBe(false);
    expect(() => stop.throwIfAborted()).not.toThrow();
    stop.abort();
    stop.abort('again');
    expect(listener).toHaveBeenCalledTimes(1);
    expect(stop.aborted).toBe(true);
    expect(stop.reason).toBeInstanceOf(DOMException);
    expect((stop.reason as DOMException).name).toBe('AbortError');
    expect(() => stop.throwIfAborted()).toThrow(stop.reason as DOMException);
  });

  it('keeps the reason it is given; a listener added after the abort, or removed before it, never runs', () => {
    const stop = new CallAbort();
    const removed = vi.fn();
    const late = vi.fn();
    stop.addEventListener('abort', removed);
    stop.removeEventListener('abort', removed);
    stop.abort('the person cancelled');
    stop.addEventListener('abort', late);
    expect(stop.reason).toBe('the person cancelled');
    expect(removed).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it('a listener that throws does not keep the others from running; the error is reported, not swallowed', () => {
    const stop = new CallAbort();
    const after = vi.fn();
    const reports: (() => void)[] = [];
    const queue = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void reports.push(task));
    stop.addEventListener('abort', () => {
      throw new Error('listener broke');
    });
    stop.addEventListener('abort', after);
    stop.abort();
    queue.mockRestore();
    expect(after).toHaveBeenCalledTimes(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toThrow('listener broke');
  });

  it("follows a caller's signal until unfollowed, with the caller's reason", () => {
    const caller = new AbortController();
    const stop = new CallAbort();
    stop.follow(caller.signal);
    caller.abort('stop now');
    expect(stop.aborted).toBe(true);
    expect(stop.reason).toBe('stop now');

    const already = new AbortController();
    already.abort('before the call');
    const late = new CallAbort();
    late.follow(already.signal);
    expect(late.reason).toBe('before the call');

    const other = new AbortController();
    const unfollowed = new CallAbort();
    unfollowed.follow(other.signal);
    unfollowed.unfollow(other.signal);
    other.abort();
    expect(unfollowed.aborted).toBe(false);
  });

  it('gives a real AbortSignal that aborts with it, made before or after the abort', () => {
    const before = new CallAbort();
    const signal = before.toAbortSignal();
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(before.toAbortSignal()).toBe(signal);
    before.abort('timed out');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('timed out');

    const after = new CallAbort();
    after.abort('cancelled');
    expect(after.toAbortSignal().aborted).toBe(true);
    expect(after.toAbortSignal().reason).toBe('cancelled');
  });
});

describe("the 1.x SDK's client with a CallAbort as a request's signal", () => {
  /** A real SDK server with a tool that answers at once and one that waits until it is cancelled. */
  async function connected(): Promise<{ client: Client; cancelled: Promise<string> }> {
    const server = new McpServer({ name: 'abort-test', version: '1' });
    let onCancelled: (reason: string) => void = () => undefined;
    const cancelled = new Promise<string>((resolve) => (onCancelled = resolve));
    server.registerTool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'hi' }] }));
    server.registerTool(
      'wait',
      { description: 'waits until cancelled' },
      (extra) =>
        new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            onCancelled(String(extra.signal.reason));
            resolve({ content: [] });
          });
        }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'abort-test-client', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    return { client, cancelled };
  }

  /** The CallAbort behind a proxy that notes each member the SDK reads. */
  function watched(stop: CallAbort): { signal: AbortSignal; read: Set<string> } {
    const read = new Set<string>();
    const proxy = new Proxy(stop, {
      get(target, key, receiver) {
        read.add(String(key));
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { signal: proxy as unknown as AbortSignal, read };
  }

  /** What CallAbort has of an AbortSignal; the SDK must read no other member of a request's signal. */
  const MEMBERS = new Set(['aborted', 'reason', 'throwIfAborted', 'addEventListener', 'removeEventListener']);

  it('a call answers as with an AbortSignal, and the SDK reads nothing CallAbort lacks', async () => {
    const { client } = await connected();
    const { signal, read } = watched(new CallAbort());
    const result = await client.request(
      { method: 'tools/call', params: { name: 'echo', arguments: {} } },
      CallToolResultSchema,
      { signal },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(read.size).toBeGreaterThan(0);
    expect([...read].filter((key) => !MEMBERS.has(key))).toEqual([]);
    await client.close();
  });

  it('aborting cancels the call: the request fails with the reason and the server is told to stop', async () => {
    const { client, cancelled } = await connected();
    const stop = new CallAbort();
    const { signal, read } = watched(stop);
    const call = client.request(
      { method: 'tools/call', params: { name: 'wait', arguments: {} } },
      CallToolResultSchema,
      { signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort('the person cancelled');
    await expect(call).rejects.toThrow(/the person cancelled/);
    expect(await cancelled).toContain('the person cancelled');
    expect([...read].filter((key) => !MEMBERS.has(key))).toEqual([]);
    await client.close();
  });

  it('a CallAbort aborted before the call keeps it from being sent', async () => {
    const { client } = await connected();
    const stop = new CallAbort();
    stop.abort('too late');
    await expect(
      client.request({ method: 'tools/call', params: { name: 'echo', arguments: {} } }, CallToolResultSchema, {
        signal: stop as unknown as AbortSignal,
      }),
    ).rejects.toBe('too late');
    await client.close();
  });
});
