import { useEffect, useSyncExternalStore } from 'react';

/**
 * The servers whose Sandbox page in Settings is open: their widening requests wait on that page, so "Server requests"
 * does not show them a second time (docs/user/sandbox.md#widening).
 */
const open = new Map<string, number>();
const listeners = new Set<() => void>();
let snapshot: ReadonlySet<string> = new Set();

function changed(): void {
  snapshot = new Set(open.keys());
  for (const listener of listeners) listener();
}

/** Marks this server's widening requests as shown here while the calling component is mounted. */
export function useWideningsShownHere(serverName: string): void {
  useEffect(() => {
    open.set(serverName, (open.get(serverName) ?? 0) + 1);
    changed();
    return () => {
      const count = (open.get(serverName) ?? 1) - 1;
      if (count > 0) open.set(serverName, count);
      else open.delete(serverName);
      changed();
    };
  }, [serverName]);
}

/** The servers whose widening requests a page shows now. */
export function useWideningsShownElsewhere(): ReadonlySet<string> {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => snapshot,
  );
}
