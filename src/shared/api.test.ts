import { describe, expect, it, vi } from 'vitest';
import { buildWorkbenchApi, type WorkbenchTransport } from './api';
import { eventNames, methodNames, type EventName, type MethodName } from './contract';
import type { Envelope } from './errors';

type Invoke = (method: MethodName, input: unknown) => Promise<Envelope>;

/** A transport whose calls answer with `answer`, and whose events are fired by hand. */
function fakeTransport(answer: Invoke = async () => ({ ok: true, value: null })) {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const invoke = vi.fn<Invoke>(answer);
  const transport: WorkbenchTransport = {
    invoke,
    subscribe(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  const fire = (event: EventName, payload: unknown): void => {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };
  return { transport, invoke, fire };
}

const member = (api: object, name: string): unknown => {
  const [space = '', rest = ''] = name.split(/\.(.*)/);
  return (api as Record<string, Record<string, unknown>>)[space]?.[rest];
};

describe('buildWorkbenchApi', () => {
  it('has one function per method and per event, grouped by namespace, and nothing else', () => {
    const api = buildWorkbenchApi(fakeTransport().transport);
    for (const name of [...methodNames, ...eventNames]) expect(typeof member(api, name)).toBe('function');
    const exposed = Object.entries(api).flatMap(([space, members]) =>
      Object.keys(members as object).map((name) => `${space}.${name}`),
    );
    expect(exposed.sort()).toEqual([...methodNames, ...eventNames].sort());
    expect(typeof api.chat.create).toBe('function');
    expect(typeof api.chat.onDidChange).toBe('function');
    expect(typeof api.app.info).toBe('function');
  });

  it('is frozen, so a page cannot swap a function', () => {
    const api = buildWorkbenchApi(fakeTransport().transport);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.chat)).toBe(true);
    expect(() => {
      (api.chat as unknown as Record<string, unknown>).create = () => null;
    }).toThrow(TypeError);
  });

  it('sends each method under its contract name with its input', async () => {
    const { transport, invoke } = fakeTransport();
    const api = buildWorkbenchApi(transport);
    for (const method of methodNames) {
      const input = { probe: method };
      await (member(api, method) as (input: unknown) => Promise<unknown>)(input);
      expect(invoke).toHaveBeenLastCalledWith(method, input);
    }
    await api.chat.list();
    expect(invoke).toHaveBeenLastCalledWith('chat.list', undefined);
  });

  it('resolves with the value of an ok envelope', async () => {
    const chat = {
      id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1',
      title: 'x',
      createdAt: 1,
      updatedAt: 1,
      providerId: null,
      model: null,
      systemPrompt: null,
    };
    const api = buildWorkbenchApi(fakeTransport(async () => ({ ok: true, value: chat })).transport);
    await expect(api.chat.create({ title: 'x' })).resolves.toEqual(chat);
  });

  it('rejects with the plain error data of an error envelope', async () => {
    const error = { code: 'not_found' as const, message: 'No chat has the id x.', details: { id: 'x' } };
    const api = buildWorkbenchApi(fakeTransport(async () => ({ ok: false, error })).transport);
    const rejection = await api.chat.get({ id: 'x' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(rejection).toEqual(error);
    expect(rejection).not.toBeInstanceOf(Error);
  });

  it('turns a failed transport into an unavailable error', async () => {
    const api = buildWorkbenchApi(fakeTransport(() => Promise.reject(new Error('socket closed'))).transport);
    await expect(api.chat.list()).rejects.toEqual({ code: 'unavailable', message: 'socket closed' });
    const odd = buildWorkbenchApi(fakeTransport(() => Promise.reject('gone')).transport);
    await expect(odd.chat.list()).rejects.toEqual({ code: 'unavailable', message: 'gone' });
  });

  it('keeps error data that a transport rejects with', async () => {
    const error = { code: 'unauthorized' as const, message: 'not our page' };
    const api = buildWorkbenchApi(fakeTransport(() => Promise.reject(error)).transport);
    await expect(api.chat.list()).rejects.toEqual(error);
  });

  it('delivers events to subscribers until they unsubscribe', () => {
    const { transport, fire } = fakeTransport();
    const api = buildWorkbenchApi(transport);
    const seen: unknown[] = [];
    const unsubscribe = api.chat.onDidChange((payload) => seen.push(payload));
    const change = { kind: 'deleted', id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1' };
    fire('chat.onDidChange', change);
    unsubscribe();
    fire('chat.onDidChange', { kind: 'deleted', id: 'later' });
    expect(seen).toEqual([change]);
  });
});
