import { useEffect, useState } from 'react';

/**
 * What a screen reader should hear that no element on screen says by itself
 * (docs/user/accessibility.md#screen-readers): an Undo that put a card back, a call that timed out. One polite live
 * region per chat (ChatPane.tsx) speaks what `announce` is given.
 */
const listeners = new Set<(text: string) => void>();

export function announce(text: string): void {
  for (const listener of [...listeners]) listener(text);
}

/** The latest announcement; the same words twice still change the region (a no-break space toggles). */
export function useAnnouncements(): string {
  const [said, setSaid] = useState({ text: '', count: 0 });
  useEffect(() => {
    const listener = (text: string): void => setSaid((previous) => ({ text, count: previous.count + 1 }));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return said.count % 2 === 1 ? said.text : `${said.text}\u00a0`;
}
