import { useCallback, useState } from 'react';
import { useChatContext } from '../chat-context';

/**
 * What a waiting call's card shows besides its answer (arguments unfolded, the editor open and what is typed in it,
 * a deny reason being written), kept by the chat's store rather than by the card: the message list unmounts rows
 * out of view, so a card scrolled away and back comes back as it was left (docs/dev/chat-list.md). The store
 * forgets a call's entries once it no longer waits.
 */
export class CardStates {
  private readonly calls = new Map<string, Map<string, unknown>>();

  has(toolCallId: string, key: string): boolean {
    return this.calls.get(toolCallId)?.has(key) ?? false;
  }

  get<T>(toolCallId: string, key: string): T | undefined {
    return this.calls.get(toolCallId)?.get(key) as T | undefined;
  }

  set(toolCallId: string, key: string, value: unknown): void {
    let call = this.calls.get(toolCallId);
    if (!call) this.calls.set(toolCallId, (call = new Map()));
    call.set(key, value);
  }

  /** Forgets every call not in `waiting`. */
  retain(waiting: ReadonlySet<string>): void {
    for (const toolCallId of this.calls.keys()) if (!waiting.has(toolCallId)) this.calls.delete(toolCallId);
  }

  get size(): number {
    return this.calls.size;
  }
}

/** `useState` for a part of a waiting call's card, kept in the chat's store across the card's unmounts. */
export function useCardState<T>(
  toolCallId: string,
  key: string,
  initial: T | (() => T),
): [T, (next: T | ((previous: T) => T)) => void] {
  const { store } = useChatContext();
  const kept = store.cardStates;
  const [value, setValue] = useState<T>(() =>
    kept.has(toolCallId, key)
      ? (kept.get<T>(toolCallId, key) as T)
      : typeof initial === 'function'
        ? (initial as () => T)()
        : initial,
  );
  const set = useCallback(
    (next: T | ((previous: T) => T)) =>
      setValue((previous) => {
        const value = typeof next === 'function' ? (next as (previous: T) => T)(previous) : next;
        kept.set(toolCallId, key, value);
        return value;
      }),
    [kept, toolCallId, key],
  );
  return [value, set];
}
