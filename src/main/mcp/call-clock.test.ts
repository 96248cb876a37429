import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallClocks } from './call-clock';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A wait on the person that the test settles. */
function personWait(): { wait: () => Promise<string>; answer(text: string): void } {
  let answer: (text: string) => void = () => undefined;
  const promise = new Promise<string>((resolve) => (answer = resolve));
  return { wait: () => promise, answer: (text) => answer(text) };
}

describe('call clocks', () => {
  it('a call expires after its timeout, once; a stopped one never does', () => {
    const clocks = createCallClocks();
    const expired = vi.fn();
    const stopped = vi.fn();
    clocks.start(1000, expired);
    clocks.start(1000, stopped).stop();
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(5000);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(stopped).not.toHaveBeenCalled();
  });

  it('a progress notification starts the timeout again in full', () => {
    const clocks = createCallClocks();
    const expired = vi.fn();
    const clock = clocks.start(1000, expired);
    vi.advanceTimersByTime(800);
    clock.restart();
    vi.advanceTimersByTime(800);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("stands still while a server's request waits, for every call of the server, and starts again in full once it is answered", async () => {
    const clocks = createCallClocks();
    const first = vi.fn();
    const second = vi.fn();
    clocks.start(1000, first);
    vi.advanceTimersByTime(900);
    const person = personWait();
    const held = clocks.hold(person.wait);
    // A call that starts while the person is asked waits too.
    clocks.start(1000, second);
    vi.advanceTimersByTime(60_000);
    expect(first).not.toHaveBeenCalled();
    expect(second).not.toHaveBeenCalled();
    person.answer('yes');
    expect(await held).toBe('yes');
    vi.advanceTimersByTime(999);
    expect(first).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('two requests at once: the clocks run again only when both are answered, and a refused one releases them too', async () => {
    const clocks = createCallClocks();
    const expired = vi.fn();
    clocks.start(1000, expired);
    const one = personWait();
    const refused = clocks.hold(() => Promise.reject(new Error('denied')));
    const held = clocks.hold(one.wait);
    await expect(refused).rejects.toThrow('denied');
    vi.advanceTimersByTime(5000);
    expect(expired).not.toHaveBeenCalled();
    one.answer('done');
    await held;
    vi.advanceTimersByTime(1000);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('calls one after another share one timer, and a call after a long one still expires on time', () => {
    const clocks = createCallClocks();
    for (let call = 0; call < 100; call++) clocks.start(60_000, () => undefined).stop();
    expect(vi.getTimerCount()).toBe(1);
    const short = vi.fn();
    clocks.start(500, short);
    vi.advanceTimersByTime(499);
    expect(short).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(short).toHaveBeenCalledTimes(1);
  });

  it('a timeout longer than a timer can hold does not fire early', () => {
    const clocks = createCallClocks();
    const expired = vi.fn();
    clocks.start(3_000_000_000, expired);
    vi.advanceTimersByTime(2_147_483_647);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(3_000_000_000 - 2_147_483_647);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("a server's request belongs to the one chat running its calls, and to nobody when none or several do", () => {
    const clocks = createCallClocks();
    const never = (): void => undefined;
    expect(clocks.chatOf()).toBeNull();
    const first = clocks.start(1000, never, 'chat-a');
    const second = clocks.start(1000, never, 'chat-a');
    expect(clocks.chatOf()).toBe('chat-a');
    const other = clocks.start(1000, never, 'chat-b');
    expect(clocks.chatOf()).toBeNull();
    other.stop();
    const withoutChat = clocks.start(1000, never);
    expect(clocks.chatOf()).toBeNull();
    withoutChat.stop();
    first.stop();
    expect(clocks.chatOf()).toBe('chat-a');
    second.stop();
    expect(clocks.chatOf()).toBeNull();
  });
});
