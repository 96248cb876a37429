/**
 * The only bridge between a page and the main process: `window.workbench`, one function per
 * contract method and one subscription per event, and `window.workbenchHost`, where views run.
 * `ipcRenderer` itself is never exposed.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { buildWorkbenchApi } from '../shared/api';
import { isEventName, type EventName } from '../shared/contract-names';
import type { Envelope } from '../shared/errors';
import { APP_FRAME_URL_CHANNEL, callChannel, EVENT_CHANNEL, type WorkbenchHost } from '../shared/ipc';

const listeners = new Map<EventName, Set<(payload: unknown) => void>>();

ipcRenderer.on(EVENT_CHANNEL, (_event, frame: { event?: unknown; payload?: unknown }) => {
  if (!isEventName(frame?.event)) return;
  for (const listener of listeners.get(frame.event) ?? []) listener(frame.payload);
});

const workbench = buildWorkbenchApi({
  invoke: (method, input) => ipcRenderer.invoke(callChannel(method), input) as Promise<Envelope>,
  subscribe(event, listener) {
    const set = listeners.get(event) ?? new Set();
    listeners.set(event, set);
    set.add(listener);
    return () => set.delete(listener);
  },
});

contextBridge.exposeInMainWorld('workbench', workbench);

// The app frame origin's address, from the main process that started it (docs/user/mcp-apps.md#how-a-view-is-shown).
const host: WorkbenchHost = Object.freeze({
  appFrameUrl: () => ipcRenderer.invoke(APP_FRAME_URL_CHANNEL) as Promise<string | null>,
});
contextBridge.exposeInMainWorld('workbenchHost', host);
