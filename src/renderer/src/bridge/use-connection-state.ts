import { useSyncExternalStore } from 'react';
import type { BrowserBridge, ConnectionState } from './browser-bridge';

/** The browser-mode WebSocket's state; always 'open' in Electron (no bridge). */
export function useConnectionState(bridge: BrowserBridge | undefined): ConnectionState {
  return useSyncExternalStore(
    (listener) => bridge?.onDidChangeState(listener) ?? (() => {}),
    () => bridge?.state ?? 'open',
  );
}
