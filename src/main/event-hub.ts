import type { EventName, EventPayload } from '../shared/contract';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** Services emit contract events here; each host forwards them to its clients. */
export interface EventHub {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Listeners are called synchronously in subscription order; a throwing listener does not stop the others. */
  subscribe(listener: EventListener): () => void;
}

export function createEventHub(onListenerError: (error: unknown) => void = () => {}): EventHub {
  const listeners = new Set<EventListener>();
  return {
    emit(event, payload) {
      for (const listener of [...listeners]) {
        try {
          listener(event, payload);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
