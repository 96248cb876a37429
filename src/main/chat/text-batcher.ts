/** Where a text delta belongs. */
export interface TextTarget {
  chatId: string;
  exchangeId: string;
  messageId: string;
  turn: number;
}

/** Text deltas on their way to the front ends, at most one event per interval per chat. */
export interface TextBatcher {
  push(target: TextTarget, delta: string): void;
  /** Sends what waits for this chat now (before any other event of the chat, so the order holds). */
  flush(chatId: string): void;
  dispose(): void;
}

interface Waiting {
  target: TextTarget;
  text: string;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Batches text deltas (every `intervalMs`, ~30 ms) so a fast stream costs the front end tens of events a second, not
 * hundreds. The first delta after a quiet interval goes out at once: batching never delays the first token.
 */
export function createTextBatcher(
  send: (target: TextTarget, text: string) => void,
  intervalMs = 30,
  now: () => number = performance.now.bind(performance),
): TextBatcher {
  const waiting = new Map<string, Waiting>();
  const lastSent = new Map<string, number>();
  const flush = (chatId: string): void => {
    const entry = waiting.get(chatId);
    if (!entry) return;
    waiting.delete(chatId);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    lastSent.set(chatId, now());
    if (entry.text !== '') send(entry.target, entry.text);
  };
  const sameTarget = (a: TextTarget, b: TextTarget): boolean =>
    a.messageId === b.messageId && a.turn === b.turn && a.exchangeId === b.exchangeId;
  return {
    push(target, delta) {
      if (delta === '') return;
      const { chatId } = target;
      const entry = waiting.get(chatId);
      if (entry && !sameTarget(entry.target, target)) flush(chatId);
      const current = waiting.get(chatId);
      if (current) {
        current.text += delta;
        return;
      }
      const since = now() - (lastSent.get(chatId) ?? Number.NEGATIVE_INFINITY);
      if (since >= intervalMs) {
        lastSent.set(chatId, now());
        send(target, delta);
        return;
      }
      const timer = setTimeout(() => flush(chatId), intervalMs - since);
      waiting.set(chatId, { target, text: delta, timer });
    },
    flush,
    dispose() {
      for (const chatId of [...waiting.keys()]) flush(chatId);
      lastSent.clear();
    },
  };
}
