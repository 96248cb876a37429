import { describe, expect, it, vi } from 'vitest';
import type { ChatChange } from '../shared/chat';
import { createEventHub } from './event-hub';

const change: ChatChange = { kind: 'deleted', id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1' };

describe('createEventHub', () => {
  it('calls listeners synchronously, in subscription order, with the event and payload', () => {
    const hub = createEventHub();
    const calls: string[] = [];
    hub.subscribe((event, payload) => calls.push(`first ${event} ${JSON.stringify(payload)}`));
    hub.subscribe((event) => calls.push(`second ${event}`));
    hub.emit('chat.onDidChange', change);
    expect(calls).toEqual([`first chat.onDidChange ${JSON.stringify(change)}`, 'second chat.onDidChange']);
  });

  it('keeps calling the other listeners when one throws, and reports the error', () => {
    const boom = new Error('listener failed');
    const onListenerError = vi.fn();
    const hub = createEventHub(onListenerError);
    const after = vi.fn();
    hub.subscribe(() => {
      throw boom;
    });
    hub.subscribe(after);
    expect(() => hub.emit('chat.onDidChange', change)).not.toThrow();
    expect(after).toHaveBeenCalledOnce();
    expect(onListenerError).toHaveBeenCalledExactlyOnceWith(boom);
  });

  it('stops calling a listener once it unsubscribes, even during an emit', () => {
    const hub = createEventHub();
    const late = vi.fn();
    let unsubscribeLate = (): void => {};
    hub.subscribe(() => unsubscribeLate());
    unsubscribeLate = hub.subscribe(late);
    // The emit in progress still reaches everyone it started with; the next one does not.
    hub.emit('chat.onDidChange', change);
    hub.emit('chat.onDidChange', change);
    expect(late).toHaveBeenCalledTimes(1);
  });
});
