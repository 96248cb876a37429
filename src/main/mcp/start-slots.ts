import { availableParallelism } from 'node:os';

/** Frees a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * How many local server processes start at once (docs/user/mcp-servers.md, "Every enabled server starts"): one per
 * core. A server start is mostly CPU (Node loading its SDK), so ten at once on two cores take as long in total as
 * two at a time, but starve everything else meanwhile — the first request of a chat, the window. A slot is held
 * from the spawn until the server answered `initialize`, or for `holdMs` at most, so a server that is slow to
 * start (a container, a download) does not hold the others back.
 */
export interface StartSlots {
  /** Resolves when a slot is free; the caller must release it. */
  take(): Promise<ReleaseSlot>;
}

export const START_SLOT_HOLD_MS = 1000;

export function createStartSlots(count = availableParallelism(), holdMs = START_SLOT_HOLD_MS): StartSlots {
  let busy = 0;
  const waiting: (() => void)[] = [];
  const grant = (): ReleaseSlot => {
    busy++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      busy--;
      waiting.shift()?.();
    };
    const timer = setTimeout(release, holdMs);
    timer.unref?.();
    return release;
  };
  return {
    async take() {
      if (busy >= Math.max(1, count)) await new Promise<void>((resolve) => waiting.push(resolve));
      return grant();
    },
  };
}
