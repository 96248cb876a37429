import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectBrowserBridge } from './browser-bridge';

/** A WebSocket whose opening, messages and closing the test drives. */
class FakeSocket {
  static readonly OPEN = 1;
  static instances: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  send(frame: string): void {
    this.sent.push(frame);
  }
  close(): void {
    this.readyState = 3;
    this.onclose?.();
  }
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  /** Pushes an event, as the server does. */
  push(event: string, payload: unknown): void {
    this.onmessage?.({ data: JSON.stringify({ type: 'event', event, payload }) });
  }
  /** Answers the call in `frame` with `result`. */
  answer(frame: string, result: unknown): void {
    const { id } = JSON.parse(frame) as { id: number };
    this.onmessage?.({ data: JSON.stringify({ type: 'result', id, result: { ok: true, value: result } }) });
  }
}

afterEach(() => {
  FakeSocket.instances = [];
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function connect(): { bridge: ReturnType<typeof connectBrowserBridge>; socket: () => FakeSocket } {
  vi.stubGlobal('WebSocket', FakeSocket);
  const bridge = connectBrowserBridge('token', { host: '127.0.0.1:4790' });
  return { bridge, socket: () => FakeSocket.instances.at(-1) as FakeSocket };
}

describe('the browser bridge', () => {
  it('holds a call made before the first connection opened, and sends it when it opens', async () => {
    const { bridge, socket } = connect();
    const answer = bridge.invoke('app.info', undefined);
    expect(socket().sent).toEqual([]);
    socket().open();
    expect(socket().sent).toHaveLength(1);
    socket().answer(socket().sent[0] as string, { name: 'AI Workbench' });
    await expect(answer).resolves.toEqual({ ok: true, value: { name: 'AI Workbench' } });
  });

  it('fails a held call when the first connection does not come within ten seconds', async () => {
    vi.useFakeTimers();
    const { bridge } = connect();
    const answer = bridge.invoke('app.info', undefined);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(answer).resolves.toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Not connected to AI Workbench.' },
    });
  });

  it('fails a held call at once when the token is refused', async () => {
    vi.useFakeTimers();
    const { bridge, socket } = connect();
    const answer = bridge.invoke('app.info', undefined);
    // Refused before it ever opened, three times: a wrong or stale token.
    for (let attempt = 0; attempt < 3; attempt++) {
      socket().close();
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(bridge.state).toBe('refused');
    await expect(answer).resolves.toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('fails a call at once while reconnecting after the connection was lost', async () => {
    const { bridge, socket } = connect();
    socket().open();
    socket().close();
    expect(bridge.state).toBe('reconnecting');
    await expect(bridge.invoke('app.info', undefined)).resolves.toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Not connected to AI Workbench.' },
    });
    bridge.close();
  });

  describe('a prefetched call (the page asks for the chat list while its code loads)', () => {
    const methods = (socket: FakeSocket): string[] =>
      socket.sent.map((frame) => (JSON.parse(frame) as { method: string }).method);

    it('is sent as soon as the connection opens, and its answer goes to the first same call, which sends nothing', async () => {
      const { bridge, socket } = connect();
      bridge.prefetch('chat.list', undefined);
      socket().open();
      expect(methods(socket())).toEqual(['chat.list']);
      socket().answer(socket().sent[0] as string, { chats: [{ id: 'a' }] });
      await expect(bridge.invoke('chat.list', undefined)).resolves.toEqual({
        ok: true,
        value: { chats: [{ id: 'a' }] },
      });
      expect(methods(socket())).toEqual(['chat.list']);
      // Only the first: the next call asks the server.
      const again = bridge.invoke('chat.list', undefined);
      expect(methods(socket())).toEqual(['chat.list', 'chat.list']);
      socket().answer(socket().sent[1] as string, { chats: [] });
      await expect(again).resolves.toEqual({ ok: true, value: { chats: [] } });
    });

    it('settles once its answer came, an error or not (the page keeps its token after that)', async () => {
      const { bridge, socket } = connect();
      socket().open();
      let settled = 0;
      void bridge.prefetch('chat.list', undefined).then(() => settled++);
      await Promise.resolve();
      expect(settled).toBe(0);
      const { id } = JSON.parse(socket().sent[0] as string) as { id: number };
      socket().onmessage?.({
        data: JSON.stringify({
          type: 'result',
          id,
          result: { ok: false, error: { code: 'internal', message: 'busy' } },
        }),
      });
      await vi.waitFor(() => expect(settled).toBe(1));
      void bridge.prefetch('chat.list', undefined).then(() => settled++);
      socket().answer(socket().sent[1] as string, { chats: [] });
      await vi.waitFor(() => expect(settled).toBe(2));
      bridge.close();
    });

    it('serves only the same method with the same input', async () => {
      const { bridge, socket } = connect();
      socket().open();
      bridge.prefetch('chat.list', undefined);
      void bridge.invoke('chat.list', { query: 'x' });
      void bridge.invoke('app.info', undefined);
      expect(methods(socket())).toEqual(['chat.list', 'chat.list', 'app.info']);
    });

    it('is asked again when an event of its namespace arrived after it was sent; another namespace changes nothing', async () => {
      const { bridge, socket } = connect();
      socket().open();
      bridge.prefetch('chat.list', undefined);
      socket().push('mcp.onDidChangeServer', {});
      socket().answer(socket().sent[0] as string, { chats: [] });
      const kept = bridge.invoke('chat.list', undefined);
      await expect(kept).resolves.toEqual({ ok: true, value: { chats: [] } });
      expect(socket().sent).toHaveLength(1);

      bridge.prefetch('chat.list', undefined);
      socket().answer(socket().sent[1] as string, { chats: [] });
      socket().push('chat.onDidChange', { kind: 'created', chat: { id: 'b' } });
      const fresh = bridge.invoke('chat.list', undefined);
      expect(socket().sent).toHaveLength(3);
      socket().answer(socket().sent[2] as string, { chats: [{ id: 'b' }] });
      await expect(fresh).resolves.toEqual({ ok: true, value: { chats: [{ id: 'b' }] } });
    });

    it('is asked again after an error or a lost connection', async () => {
      const { bridge, socket } = connect();
      socket().open();
      bridge.prefetch('chat.list', undefined);
      const { id } = JSON.parse(socket().sent[0] as string) as { id: number };
      socket().onmessage?.({
        data: JSON.stringify({
          type: 'result',
          id,
          result: { ok: false, error: { code: 'internal', message: 'busy' } },
        }),
      });
      const retried = bridge.invoke('chat.list', undefined);
      await vi.waitFor(() => expect(socket().sent).toHaveLength(2));
      socket().answer(socket().sent[1] as string, { chats: [] });
      await expect(retried).resolves.toEqual({ ok: true, value: { chats: [] } });

      bridge.prefetch('chat.list', undefined);
      socket().close();
      // Reconnecting: the call fails at once, as any call does, rather than return the lost prefetch.
      await expect(bridge.invoke('chat.list', undefined)).resolves.toMatchObject({
        ok: false,
        error: { code: 'unavailable', message: 'Not connected to AI Workbench.' },
      });
      bridge.close();
    });
  });
});
