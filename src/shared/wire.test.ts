import { describe, expect, it } from 'vitest';
import { readCallFrame, readServerFrame } from './wire';

describe('readCallFrame', () => {
  it('reads a call, with or without input, and drops members it does not know', () => {
    expect(readCallFrame({ type: 'call', id: 0, method: 'chat.list' })).toEqual({
      type: 'call',
      id: 0,
      method: 'chat.list',
    });
    expect(readCallFrame({ type: 'call', id: 7, method: 'chat.get', input: { chatId: 'x' }, extra: true })).toEqual({
      type: 'call',
      id: 7,
      method: 'chat.get',
      input: { chatId: 'x' },
    });
  });

  it.each([
    ['another type', { type: 'result', id: 1, method: 'chat.list' }],
    ['a negative id', { type: 'call', id: -1, method: 'chat.list' }],
    ['a fractional id', { type: 'call', id: 1.5, method: 'chat.list' }],
    ['an id past the safe integers', { type: 'call', id: 2 ** 53, method: 'chat.list' }],
    ['an id as text', { type: 'call', id: '1', method: 'chat.list' }],
    ['no method', { type: 'call', id: 1 }],
    ['an array', ['call', 1, 'chat.list']],
    ['null', null],
    ['text', 'call'],
  ])('refuses %s', (_, value) => {
    expect(readCallFrame(value)).toBeUndefined();
  });
});

describe('readServerFrame', () => {
  it('reads results (ok, failed, and the id-less answer to an unreadable call) and events', () => {
    expect(readServerFrame({ type: 'result', id: 3, result: { ok: true, value: [1] } })).toEqual({
      type: 'result',
      id: 3,
      result: { ok: true, value: [1] },
    });
    expect(
      readServerFrame({
        type: 'result',
        id: null,
        result: { ok: false, error: { code: 'invalid_input', message: 'Bad frame.', stack: 'x' } },
      }),
    ).toEqual({
      type: 'result',
      id: null,
      result: { ok: false, error: { code: 'invalid_input', message: 'Bad frame.' } },
    });
    expect(
      readServerFrame({
        type: 'result',
        id: 4,
        result: { ok: false, error: { code: 'locked', message: 'No.', details: { a: 1 } } },
      }),
    ).toEqual({
      type: 'result',
      id: 4,
      result: { ok: false, error: { code: 'locked', message: 'No.', details: { a: 1 } } },
    });
    expect(readServerFrame({ type: 'event', event: 'chat.onDidChange', payload: { kind: 'deleted' } })).toEqual({
      type: 'event',
      event: 'chat.onDidChange',
      payload: { kind: 'deleted' },
    });
  });

  it.each([
    ['a call', { type: 'call', id: 1, method: 'chat.list' }],
    ['a result without an envelope', { type: 'result', id: 1 }],
    ['an envelope without ok', { type: 'result', id: 1, result: { value: 1 } }],
    [
      'a failure with an unknown code',
      { type: 'result', id: 1, result: { ok: false, error: { code: 'oops', message: 'x' } } },
    ],
    ['a failure without a message', { type: 'result', id: 1, result: { ok: false, error: { code: 'internal' } } }],
    ['a negative id', { type: 'result', id: -2, result: { ok: true, value: 1 } }],
    ['an event without a name', { type: 'event', payload: 1 }],
    ['undefined', undefined],
  ])('refuses %s', (_, value) => {
    expect(readServerFrame(value)).toBeUndefined();
  });
});
