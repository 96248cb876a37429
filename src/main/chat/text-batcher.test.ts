import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTextBatcher, type TextTarget } from './text-batcher';

const target = (messageId = 'm1', turn = 0, chatId = 'c1'): TextTarget => ({
  chatId,
  exchangeId: 'e1',
  messageId,
  turn,
});

describe('the text batcher', () => {
  let clock: number;
  let sent: { messageId: string; turn: number; text: string }[];
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
    sent = [];
  });
  afterEach(() => vi.useRealTimers());
  const batcher = () =>
    createTextBatcher(
      (to, text) => sent.push({ messageId: to.messageId, turn: to.turn, text }),
      30,
      () => clock,
    );
  const advance = (ms: number): void => {
    clock += ms;
    vi.advanceTimersByTime(ms);
  };

  it('sends the first delta at once and batches what follows within the interval', () => {
    const text = batcher();
    text.push(target(), 'Hel');
    expect(sent).toEqual([{ messageId: 'm1', turn: 0, text: 'Hel' }]);
    text.push(target(), 'lo');
    advance(10);
    text.push(target(), ', wor');
    expect(sent).toHaveLength(1);
    advance(20);
    expect(sent.map((entry) => entry.text)).toEqual(['Hel', 'lo, wor']);
    advance(100);
    text.push(target(), 'ld');
    expect(sent.map((entry) => entry.text)).toEqual(['Hel', 'lo, wor', 'ld']);
  });

  it('keeps the order: a new turn or an explicit flush sends what waits first', () => {
    const text = batcher();
    text.push(target(), 'a');
    text.push(target(), 'b');
    text.push(target('m1', 1), 'c');
    expect(sent).toEqual([
      { messageId: 'm1', turn: 0, text: 'a' },
      { messageId: 'm1', turn: 0, text: 'b' },
    ]);
    text.flush('c1');
    expect(sent.at(-1)).toEqual({ messageId: 'm1', turn: 1, text: 'c' });
    text.flush('c1');
    expect(sent).toHaveLength(3);
  });

  it('batches each chat on its own and loses nothing on dispose', () => {
    const text = batcher();
    text.push(target('a', 0, 'one'), 'x');
    text.push(target('b', 0, 'two'), 'y');
    text.push(target('a', 0, 'one'), 'z');
    text.push(target('b', 0, 'two'), 'w');
    expect(sent.map((entry) => entry.text)).toEqual(['x', 'y']);
    text.dispose();
    expect(sent.map((entry) => entry.text).sort()).toEqual(['w', 'x', 'y', 'z']);
  });
});
