import { describe, expect, it, vi } from 'vitest';
import { methodNames, type MethodName } from '../../shared/contract';
import type { Envelope } from '../../shared/errors';
import { callChannel } from '../../shared/ipc';
import type { Dispatch } from './dispatcher';
import { registerIpcHandlers, type IpcMainLike } from './ipc-adapter';

interface FakeEvent {
  senderUrl: string;
}

type Listener = (event: FakeEvent, ...args: unknown[]) => Promise<Envelope>;

/** Behaves like ipcMain.handle: one handler per channel, a second registration is an error. */
function fakeIpcMain(): IpcMainLike<FakeEvent> & {
  handlers: Map<string, Listener>;
  invoke(channel: string, event: FakeEvent, input: unknown): Promise<Envelope>;
} {
  const handlers = new Map<string, Listener>();
  return {
    handlers,
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, listener);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
    invoke(channel, event, input) {
      const listener = handlers.get(channel);
      if (!listener) throw new Error(`No handler registered for '${channel}'`);
      return listener(event, input);
    },
  };
}

const trusted = (event: FakeEvent): boolean => event.senderUrl.startsWith('app://workbench/');

describe('registerIpcHandlers', () => {
  it('registers exactly one channel per contract method, named by callChannel', () => {
    const ipc = fakeIpcMain();
    registerIpcHandlers(ipc, vi.fn<Dispatch>(), trusted);
    expect([...ipc.handlers.keys()].sort()).toEqual(methodNames.map((method) => callChannel(method)).sort());
    expect(ipc.handlers.size).toBe(methodNames.length);
    expect(callChannel('chat.rename')).toBe('workbench:call:chat.rename');
  });

  it('refuses a call from an untrusted sender with unauthorized, before anything is dispatched', async () => {
    const ipc = fakeIpcMain();
    const dispatch = vi.fn<Dispatch>();
    const isTrusted = vi.fn(trusted);
    registerIpcHandlers(ipc, dispatch, isTrusted);
    for (const method of methodNames) {
      const event = { senderUrl: 'https://evil.example/' };
      const envelope = await ipc.invoke(callChannel(method), event, { id: 'x' });
      expect(envelope).toEqual({
        ok: false,
        error: { code: 'unauthorized', message: expect.stringContaining(method) },
      });
      expect(isTrusted).toHaveBeenLastCalledWith(event);
    }
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('dispatches a trusted call with its method and input, and answers with the envelope', async () => {
    const ipc = fakeIpcMain();
    const dispatch = vi.fn<Dispatch>(async (method) => ({ ok: true, value: { echoed: method } }));
    registerIpcHandlers(ipc, dispatch, trusted);
    for (const method of methodNames) {
      const input = { probe: method };
      const envelope = await ipc.invoke(callChannel(method), { senderUrl: 'app://workbench/index.html' }, input);
      expect(envelope).toEqual({ ok: true, value: { echoed: method } });
      expect(dispatch).toHaveBeenLastCalledWith(method, input);
    }
    expect(dispatch).toHaveBeenCalledTimes(methodNames.length);
  });

  it('passes error envelopes through unchanged', async () => {
    const ipc = fakeIpcMain();
    const failure: Envelope = { ok: false, error: { code: 'not_found', message: 'No chat has the id x.' } };
    registerIpcHandlers(ipc, async () => failure, trusted);
    const method: MethodName = 'chat.get';
    expect(await ipc.invoke(callChannel(method), { senderUrl: 'app://workbench/' }, { id: 'x' })).toEqual(failure);
  });

  it('returns a disposer that removes every handler, so they can be registered again', () => {
    const ipc = fakeIpcMain();
    const dispose = registerIpcHandlers(ipc, vi.fn<Dispatch>(), trusted);
    const removeHandler = vi.spyOn(ipc, 'removeHandler');
    dispose();
    expect(ipc.handlers.size).toBe(0);
    expect(removeHandler.mock.calls.map(([channel]) => channel).sort()).toEqual(
      methodNames.map((method) => callChannel(method)).sort(),
    );
    expect(() => registerIpcHandlers(ipc, vi.fn<Dispatch>(), trusted)).not.toThrow();
    expect(ipc.handlers.size).toBe(methodNames.length);
  });
});
