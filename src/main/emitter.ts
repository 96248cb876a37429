/** Subscribes to a service's typed changes; returns the unsubscription. */
export type Subscribe<T> = (listener: (change: T) => void) => () => void;

/** A service's own typed event (docs/dev/architecture.md "Services own their events"). */
export interface Emitter<T> {
  /** What other services and the hosts subscribe to. */
  readonly event: Subscribe<T>;
  /** Calls every listener synchronously, in subscription order; a throwing listener does not stop the others. */
  fire(change: T): void;
}

export function createEmitter<T>(onListenerError: (error: unknown) => void = () => {}): Emitter<T> {
  const listeners = new Set<(change: T) => void>();
  return {
    event(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    fire(change) {
      for (const listener of [...listeners]) {
        try {
          listener(change);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
  };
}
