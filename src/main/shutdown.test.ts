import { afterEach, describe, expect, it, vi } from 'vitest';
import { createShutdown, exitOnSignals, stopRunningLifecycles, trackRunning, type StopStep } from './shutdown';

/** A step that records when it starts and when it ends, and can be held open or made to fail. */
function recordingSteps(log: string[], names: readonly string[], fail: ReadonlySet<string> = new Set()): StopStep[] {
  return names.map((name) => ({
    name,
    async run() {
      log.push(`start ${name}`);
      await Promise.resolve();
      if (fail.has(name)) throw new Error(`${name} broke`);
      log.push(`end ${name}`);
    },
  }));
}

describe('createShutdown', () => {
  it('runs the steps in order, each after the previous one settled', async () => {
    const log: string[] = [];
    const shutdown = createShutdown(() => recordingSteps(log, ['input', 'exchanges', 'timers', 'mcp', 'database']));
    const report = await shutdown.run();
    expect(log).toEqual([
      'start input',
      'end input',
      'start exchanges',
      'end exchanges',
      'start timers',
      'end timers',
      'start mcp',
      'end mcp',
      'start database',
      'end database',
    ]);
    expect(report).toEqual({ steps: ['input', 'exchanges', 'timers', 'mcp', 'database'], failures: [] });
  });

  it('is idempotent: a second run, during or after the first, returns the same promise and runs nothing again', async () => {
    const log: string[] = [];
    const shutdown = createShutdown(() => recordingSteps(log, ['a', 'b']));
    const first = shutdown.run();
    const during = shutdown.run();
    expect(during).toBe(first);
    await first;
    expect(shutdown.run()).toBe(first);
    await shutdown.run();
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('a failing step (thrown or rejected) does not skip the later ones, and is reported with its error', async () => {
    const log: string[] = [];
    const told: string[] = [];
    const steps: StopStep[] = [
      {
        name: 'throws at once',
        run: () => {
          log.push('start throws at once');
          throw new Error('sync failure');
        },
      },
      ...recordingSteps(log, ['mcp', 'database'], new Set(['mcp'])),
    ];
    const report = await createShutdown(
      () => steps,
      (step) => told.push(step),
    ).run();
    expect(log).toEqual(['start throws at once', 'start mcp', 'start database', 'end database']);
    expect(report.steps).toEqual(['throws at once', 'mcp', 'database']);
    expect(report.failures.map((failure) => [failure.step, (failure.error as Error).message])).toEqual([
      ['throws at once', 'sync failure'],
      ['mcp', 'mcp broke'],
    ]);
    expect(told).toEqual(['throws at once', 'mcp']);
  });

  it('a logger that throws does not stop the shutdown either', async () => {
    const log: string[] = [];
    const report = await createShutdown(
      () => recordingSteps(log, ['a', 'b'], new Set(['a'])),
      () => {
        throw new Error('logger broke');
      },
    ).run();
    expect(log).toEqual(['start a', 'start b', 'end b']);
    expect(report.failures.map((failure) => failure.step)).toEqual(['a']);
  });

  it('says running, then stopping from the moment run() is called (the first step starts at once), then stopped', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const shutdown = createShutdown(() => [{ name: 'held', run: () => (started.push('held'), held) }]);
    expect(shutdown.state).toBe('running');
    const done = shutdown.run();
    expect(shutdown.state).toBe('stopping');
    expect(started).toEqual(['held']);
    release();
    await done;
    expect(shutdown.state).toBe('stopped');
  });

  it('reads the steps when it runs, so steps added after creation are included', async () => {
    const log: string[] = [];
    const names = ['first'];
    const shutdown = createShutdown(() => recordingSteps(log, names));
    names.push('added later');
    await shutdown.run();
    expect(log).toEqual(['start first', 'end first', 'start added later', 'end added later']);
  });
});

describe('stopRunningLifecycles', () => {
  it('stops every tracked lifecycle, and forgets one that untracked itself', async () => {
    const stopped: string[] = [];
    const make = (name: string) => ({ stop: async () => (stopped.push(name), { steps: [name], failures: [] }) });
    const untrackA = trackRunning(make('a'));
    const untrackB = trackRunning(make('b'));
    untrackA();
    const reports = await stopRunningLifecycles();
    expect(stopped).toEqual(['b']);
    expect(reports).toEqual([{ steps: ['b'], failures: [] }]);
    untrackB();
  });
});

describe('exitOnSignals', () => {
  // A signal no test runner listens to; process.emit calls only the listeners, it sends no signal.
  const SIGNAL = 'SIGUSR2';
  let remove: (() => void) | undefined;
  afterEach(() => {
    remove?.();
    remove = undefined;
    vi.useRealTimers();
  });

  it("runs the orderly stop first, then exits with the signal's code, once", async () => {
    const events: string[] = [];
    let release = (): void => {};
    const stop = vi.fn(() =>
      new Promise<void>((resolve) => (release = resolve)).then(() => void events.push('stopped')),
    );
    const exited = new Promise<number>((resolve) => {
      remove = exitOnSignals({
        signals: { [SIGNAL]: 140 },
        stop,
        exit: (code) => (events.push(`exit ${code}`), resolve(code)),
      });
    });
    process.emit(SIGNAL);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(events).toEqual([]);
    release();
    expect(await exited).toBe(140);
    expect(events).toEqual(['stopped', 'exit 140']);
  });

  it('exits even when the stop fails', async () => {
    const exits: number[] = [];
    const exited = new Promise<void>((resolve) => {
      remove = exitOnSignals({
        signals: { [SIGNAL]: 3 },
        stop: () => Promise.reject(new Error('broken')),
        exit: (code) => (exits.push(code), resolve()),
      });
    });
    process.emit(SIGNAL);
    await exited;
    expect(exits).toEqual([3]);
  });

  it('a second signal while stopping exits at once, and the stop finishing later does not exit again', async () => {
    const exits: number[] = [];
    let release = (): void => {};
    const stopping = new Promise<void>((resolve) => (release = resolve));
    remove = exitOnSignals({ signals: { [SIGNAL]: 7 }, stop: () => stopping, exit: (code) => exits.push(code) });
    process.emit(SIGNAL);
    expect(exits).toEqual([]);
    process.emit(SIGNAL);
    expect(exits).toEqual([7]);
    release();
    await stopping;
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([7]);
  });

  it('exits after the grace period when the stop hangs', async () => {
    vi.useFakeTimers();
    const exits: number[] = [];
    remove = exitOnSignals({
      signals: { [SIGNAL]: 9 },
      stop: () => new Promise(() => {}),
      graceMs: 1_000,
      exit: (code) => exits.push(code),
    });
    process.emit(SIGNAL);
    await vi.advanceTimersByTimeAsync(999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([9]);
  });

  it('removes its handlers when asked', () => {
    const before = process.listenerCount(SIGNAL);
    const off = exitOnSignals({ signals: { [SIGNAL]: 1 }, stop: async () => {}, exit: () => {} });
    expect(process.listenerCount(SIGNAL)).toBe(before + 1);
    off();
    expect(process.listenerCount(SIGNAL)).toBe(before);
  });
});
