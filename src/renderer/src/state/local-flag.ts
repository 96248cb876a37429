import { useSyncExternalStore } from 'react';

/**
 * A yes/no kept in this window's local storage (this browser profile, or the app window's), for things a person
 * dismisses once: read as a React value, set for good. Storage that refuses (a private window) reads as unset, so
 * what was dismissed shows again — the safe side.
 */
export interface LocalFlag {
  readonly get: () => boolean;
  set(): void;
  readonly subscribe: (listener: () => void) => () => void;
}

export function createLocalFlag(key: string): LocalFlag {
  const listeners = new Set<() => void>();
  return {
    get: () => {
      try {
        return localStorage.getItem(key) === '1';
      } catch {
        return false;
      }
    },
    set() {
      try {
        localStorage.setItem(key, '1');
      } catch {
        // Not kept: it shows again next time.
      }
      for (const listener of [...listeners]) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function useLocalFlag(flag: LocalFlag): boolean {
  return useSyncExternalStore(flag.subscribe, flag.get);
}
