import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStartSlots } from './start-slots';
import { createTestHost, disposeTestHosts, fixtureServer } from './test-fixtures/harness';

afterEach(async () => {
  vi.useRealTimers();
  await disposeTestHosts();
});

describe('start slots', () => {
  it('let as many starts through as there are slots; the next waits for a release, or for the hold time to pass', async () => {
    vi.useFakeTimers();
    const slots = createStartSlots(2, 1000);
    const order: string[] = [];
    const first = await slots.take();
    await slots.take();
    const third = slots.take().then((release) => {
      order.push('third');
      return release;
    });
    void slots.take().then(() => order.push('fourth'));
    await vi.advanceTimersByTimeAsync(10);
    expect(order).toEqual([]);
    first();
    first(); // a second release frees nothing more
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['third']);
    // The second slot was never released: it frees itself when its hold time is over.
    await vi.advanceTimersByTimeAsync(990);
    expect(order).toEqual(['third', 'fourth']);
    (await third)();
  });

  it('a server that never answers initialize does not keep the next one from starting', async () => {
    const test = createTestHost(
      { hangs: fixtureServer({ FIXTURE_NO_INITIALIZE: '1' }), next: fixtureServer() },
      { options: { startSlots: 1 } },
    );
    await test.waitFor('next', (server) => server.status.state === 'ready' && server.status.toolCount > 0);
    expect(test.host.server('hangs').status.state).toBe('starting');
  });
});
