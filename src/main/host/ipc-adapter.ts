import { methodNames } from '../../shared/contract';
import { callChannel } from '../../shared/ipc';
import type { Envelope } from '../../shared/errors';
import type { Dispatch } from './dispatcher';

/** The part of Electron's `ipcMain` this adapter needs, so it stays testable in plain Node. */
export interface IpcMainLike<Event> {
  handle(channel: string, listener: (event: Event, ...args: unknown[]) => Promise<Envelope>): void;
  removeHandler(channel: string): void;
}

/**
 * Registers one `ipcMain.handle` channel per contract method. A call from a sender that is not
 * one of our own pages is refused before it reaches a service.
 */
export function registerIpcHandlers<Event>(
  ipc: IpcMainLike<Event>,
  dispatch: Dispatch,
  isTrustedSender: (event: Event) => boolean,
): () => void {
  for (const method of methodNames) {
    ipc.handle(callChannel(method), async (event, input) => {
      if (!isTrustedSender(event)) {
        return {
          ok: false,
          error: { code: 'unauthorized', message: `${method} was called from a page that is not AI Workbench.` },
        };
      }
      return dispatch(method, input);
    });
  }
  return () => {
    for (const method of methodNames) ipc.removeHandler(callChannel(method));
  };
}
