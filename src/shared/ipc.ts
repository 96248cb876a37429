import type { MethodName } from './contract';

/** The Electron IPC channel of one contract method; the preload and main both derive it from here. */
export function callChannel(method: MethodName): string {
  return `workbench:call:${method}`;
}

/** Every contract event travels on this one channel as `{ event, payload }`. */
export const EVENT_CHANNEL = 'workbench:event';
