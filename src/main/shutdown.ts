/**
 * Ordered, idempotent shutdown and signal handling, kept apart from the services so that a host can install its
 * signal handlers before it loads them (the CLI keeps its start-up light). The order itself is in ./lifecycle.ts.
 */

export type LifecycleState = 'running' | 'stopping' | 'stopped';

export interface StopStep {
  readonly name: string;
  run(): void | Promise<void>;
}

export interface StopReport {
  /** Every step that ran, in order. */
  readonly steps: readonly string[];
  readonly failures: ReadonlyArray<{ step: string; error: unknown }>;
}

interface Stoppable {
  stop(): Promise<StopReport>;
}

const running = new Set<Stoppable>();

/** Remembers a running lifecycle until the returned function is called (when it stopped). */
export function trackRunning(lifecycle: Stoppable): () => void {
  running.add(lifecycle);
  return () => running.delete(lifecycle);
}

/** Stops every lifecycle of this process that still runs: for signal handlers installed before a host opened one. */
export function stopRunningLifecycles(): Promise<StopReport[]> {
  return Promise.all([...running].map((lifecycle) => lifecycle.stop()));
}

export interface Shutdown {
  readonly state: LifecycleState;
  run(): Promise<StopReport>;
}

/** Runs the steps once, in order, each after the previous one settled; a failure is recorded and the next step runs. */
export function createShutdown(
  steps: () => readonly StopStep[],
  onStepError?: (step: string, error: unknown) => void,
): Shutdown {
  let state: LifecycleState = 'running';
  let done: Promise<StopReport> | undefined;
  const runAll = async (): Promise<StopReport> => {
    const ran: string[] = [];
    const failures: Array<{ step: string; error: unknown }> = [];
    for (const step of steps()) {
      ran.push(step.name);
      try {
        await step.run();
      } catch (error) {
        failures.push({ step: step.name, error });
        try {
          onStepError?.(step.name, error);
        } catch {
          // A failing logger must not stop the shutdown either.
        }
      }
    }
    state = 'stopped';
    return { steps: ran, failures };
  };
  return {
    get state() {
      return state;
    },
    run() {
      if (!done) {
        state = 'stopping';
        done = runAll();
      }
      return done;
    },
  };
}

export interface SignalExitOptions {
  /** The exit code for each signal handled. */
  signals: Partial<Record<NodeJS.Signals, number>>;
  /** The orderly stop to run first. */
  stop: () => Promise<unknown>;
  /** How long the stop may take before the process exits anyway (the 'exit' guard still kills the MCP servers). */
  graceMs?: number;
  exit?: (code: number) => void;
}

/**
 * Ends the process on the given signals after an orderly stop. A second signal while stopping exits at once.
 * Returns a function that removes the handlers.
 */
export function exitOnSignals(options: SignalExitOptions): () => void {
  const exitNow = options.exit ?? ((code: number) => process.exit(code));
  let exited = false;
  const exit = (code: number): void => {
    if (exited) return;
    exited = true;
    exitNow(code);
  };
  let stopping = false;
  const handlers = Object.entries(options.signals).map(([signal, code]) => {
    const handler = (): void => {
      if (stopping) return exit(code);
      stopping = true;
      const deadline = setTimeout(() => exit(code), options.graceMs ?? 10_000);
      deadline.unref();
      let stopped: Promise<unknown>;
      try {
        stopped = Promise.resolve(options.stop());
      } catch (error) {
        stopped = Promise.reject(error);
      }
      void stopped
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(deadline);
          exit(code);
        });
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
