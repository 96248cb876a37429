/**
 * The timeouts of one server's tool calls (docs/user/mcp-servers.md, "Timeouts"). A call's timeout counts the time
 * the server works on it, not the time it waits on us: while the server's own request (sampling, elicitation) waits
 * for the person or the model, the clock stands still, and it starts again in full once that is answered, as after a
 * progress notification. Over stdio a server's request does not say which of its calls it serves, so each one holds
 * every clock of that server.
 */
export interface CallClock {
  /** Starts the timeout again in full (a progress notification). */
  restart(): void;
  /** The call ended: the clock is dropped. */
  stop(): void;
}

export interface CallClocks {
  /** A call's clock: `onExpired` runs once `timeoutMs` passed with nothing held. */
  start(timeoutMs: number, onExpired: () => void): CallClock;
  /** Runs `wait` (a server's request of the person or the model) with every clock held until it settles. */
  hold<T>(wait: () => Promise<T>): Promise<T>;
}

interface Running {
  timeoutMs: number;
  onExpired(): void;
  timer?: NodeJS.Timeout | undefined;
}

export function createCallClocks(): CallClocks {
  const running = new Set<Running>();
  let holds = 0;

  const arm = (clock: Running): void => {
    clearTimeout(clock.timer);
    clock.timer = undefined;
    if (holds > 0 || !running.has(clock)) return;
    clock.timer = setTimeout(() => {
      running.delete(clock);
      clock.onExpired();
    }, clock.timeoutMs);
  };

  return {
    start(timeoutMs, onExpired) {
      const clock: Running = { timeoutMs, onExpired };
      running.add(clock);
      arm(clock);
      return {
        restart: () => arm(clock),
        stop: () => {
          running.delete(clock);
          arm(clock);
        },
      };
    },
    async hold(wait) {
      holds++;
      if (holds === 1) for (const clock of running) arm(clock);
      try {
        return await wait();
      } finally {
        holds--;
        if (holds === 0) for (const clock of running) arm(clock);
      }
    },
  };
}
