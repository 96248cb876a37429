// The count of everything that waits, as the desktop app's tray and badge follow it (docs/user/approvals.md
// "What waits"): counted again after each event that can change it and every WAITING_LOOK_MS for what another
// process holds, which sends no event; listeners hear only a change.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WAITING_LOOK_MS } from '../shared/waiting';
import { createEventHub } from './event-hub';
import { createWaitingCount, type WhatWaits } from './what-waits';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const waits = (approvals: number, requests: number): WhatWaits =>
  ({ approvals: Array(approvals).fill({}), requests: Array(requests).fill({}) }) as unknown as WhatWaits;

describe('the count of what waits', () => {
  it('counts tool calls and requests, again after an event and on its own clock, and says only a change', () => {
    let now = waits(1, 0);
    const events = createEventHub();
    const count = createWaitingCount({ list: () => now, events });
    const heard: number[] = [];
    count.onDidChange((value) => heard.push(value));
    expect(count.count()).toBe(1);

    // A request held here: its event counts it at once.
    now = waits(1, 1);
    events.emit('serverRequests.onDidChange', { kind: 'waiting', request: {} as never });
    expect(heard).toEqual([2]);
    // An event that changes nothing that waits is not a change.
    events.emit('settings.onDidReload', {} as never);
    events.emit('approvals.onDidChange', { kind: 'chat-mode', chatId: 'c', mode: 'ask' } as never);
    expect(heard).toEqual([2]);

    // Another process starts holding a call: no event; the next look counts it.
    now = waits(2, 1);
    vi.advanceTimersByTime(WAITING_LOOK_MS - 1);
    expect(count.count()).toBe(2);
    vi.advanceTimersByTime(1);
    expect(heard).toEqual([2, 3]);
    vi.advanceTimersByTime(WAITING_LOOK_MS * 3);
    expect(heard).toEqual([2, 3]);

    // `refresh` counts now.
    now = waits(0, 0);
    expect(count.refresh()).toBe(0);
    expect(heard).toEqual([2, 3, 0]);

    // Disposed: it looks no more.
    count.dispose();
    now = waits(5, 5);
    vi.advanceTimersByTime(WAITING_LOOK_MS * 3);
    events.emit('chat.onDidChange', { kind: 'deleted', id: 'c' } as never);
    expect(count.count()).toBe(0);
  });

  it('keeps the last count when listing fails, and says why', () => {
    const errors: unknown[] = [];
    let fail = false;
    const count = createWaitingCount({
      list: () => {
        if (fail) throw new Error('database is locked');
        return waits(1, 1);
      },
      events: createEventHub(),
      onError: (error) => errors.push(error),
    });
    fail = true;
    vi.advanceTimersByTime(WAITING_LOOK_MS);
    expect(count.count()).toBe(2);
    expect(errors).toEqual([new Error('database is locked')]);
    count.dispose();
  });
});
