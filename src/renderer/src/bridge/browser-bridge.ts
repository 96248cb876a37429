import type { Unsubscribe, WorkbenchTransport } from '../../../shared/api';
import { isEventName, type EventName, type MethodName } from '../../../shared/contract-names';
import type { Envelope } from '../../../shared/errors';
import { readServerFrame, WIRE_PROTOCOL, WIRE_TOKEN_PREFIX } from '../../../shared/wire';
import { parseJsonOrUndefined } from '../../../shared/json';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'refused';

export interface BrowserBridge extends WorkbenchTransport {
  readonly state: ConnectionState;
  /**
   * Sends a call now, before anyone asks for it: the page's entry asks for what the first screen shows while the
   * app's code still loads (docs/dev/benchmarks.md, app-start). The first `invoke` of the same method and input takes
   * its answer, unless an event of the same namespace (`chat.` for `chat.list`) arrived after it was sent, or the
   * connection closed: then that invoke asks again, as it does when the answer was an error. Settles once the answer
   * came, whatever it was.
   */
  prefetch(method: MethodName, input: unknown): Promise<void>;
  onDidChangeState(listener: (state: ConnectionState) => void): Unsubscribe;
  close(): void;
}

interface PendingCall {
  resolve(envelope: Envelope): void;
}

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];
/** How long a call made before the first connection waits for it. */
const FIRST_CONNECT_WAIT_MS = 10_000;
const NOT_CONNECTED = 'Not connected to AI Workbench.';

/**
 * Browser mode's `WorkbenchTransport`: the contract over one WebSocket to the page's own origin,
 * authenticated by the per-launch token. Reconnects with back-off. Calls made while the page is still
 * connecting for the first time wait for it (for a while); calls made after the connection was lost fail at
 * once with `unavailable` rather than hang.
 */
export function connectBrowserBridge(token: string, location: { host: string } = window.location): BrowserBridge {
  const url = `ws://${location.host}/ws`;
  const pending = new Map<number, PendingCall>();
  const eventListeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let socket: WebSocket | null = null;
  let nextId = 1;
  let attempt = 0;
  let everOpened = false;
  let closed = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  // Calls made before the first connection opened: sent when it opens, failed when it is refused or takes too long.
  const early = new Set<{ send(): void; fail(): void }>();
  // Answers asked for before anyone wanted them, by method and input (prefetch).
  const prefetched = new Map<string, Promise<Envelope>>();

  const setState = (next: ConnectionState): void => {
    if (next === state) return;
    state = next;
    if (next !== 'connecting') for (const call of [...early]) (next === 'open' ? call.send : call.fail)();
    for (const listener of [...stateListeners]) listener(next);
  };

  const failPending = (message: string): void => {
    for (const call of pending.values()) call.resolve({ ok: false, error: { code: 'unavailable', message } });
    pending.clear();
  };

  const open = (): void => {
    const ws = new WebSocket(url, [WIRE_PROTOCOL, WIRE_TOKEN_PREFIX + token]);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      everOpened = true;
      setState('open');
    };
    ws.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      const frame = readServerFrame(parseJsonOrUndefined(message.data));
      if (!frame) return;
      if (frame.type === 'result') {
        if (frame.id === null) {
          // The server could not read one of our frames, so it cannot say which call it was: fail every
          // pending call with its message rather than leave the UI waiting forever.
          if (!frame.result.ok) failPending(frame.result.error.message);
          return;
        }
        pending.get(frame.id)?.resolve(frame.result);
        pending.delete(frame.id);
      } else if (isEventName(frame.event)) {
        // What changed may be missing from an answer sent before: it is asked again when wanted.
        const space = namespaceOf(frame.event);
        for (const key of [...prefetched.keys()]) if (key.startsWith(space)) prefetched.delete(key);
        for (const listener of [...(eventListeners.get(frame.event) ?? [])]) listener(frame.payload);
      }
    };
    ws.onclose = () => {
      socket = null;
      prefetched.clear();
      failPending('The connection to AI Workbench was lost.');
      if (closed) return;
      // A socket refused before it ever opened means a wrong or stale token: retrying will not help.
      if (!everOpened && attempt >= 2) {
        setState('refused');
        return;
      }
      setState(everOpened ? 'reconnecting' : 'connecting');
      const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)] ?? 4000;
      attempt++;
      retryTimer = setTimeout(open, delay);
    };
  };
  open();

  const invoke = (method: MethodName, input: unknown): Promise<Envelope> => {
    const notConnected: Envelope = { ok: false, error: { code: 'unavailable', message: NOT_CONNECTED } };
    const send = (): Promise<Envelope> => {
      if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.resolve(notConnected);
      const id = nextId++;
      const frame = JSON.stringify({ type: 'call', id, method, input });
      return new Promise<Envelope>((resolve) => {
        pending.set(id, { resolve });
        socket?.send(frame);
      });
    };
    if (state !== 'connecting' || closed) return send();
    return new Promise<Envelope>((resolve) => {
      const call = {
        send: () => {
          settle();
          void send().then(resolve);
        },
        fail: () => {
          settle();
          resolve(notConnected);
        },
      };
      const timer = setTimeout(call.fail, FIRST_CONNECT_WAIT_MS);
      const settle = (): void => {
        clearTimeout(timer);
        early.delete(call);
      };
      early.add(call);
    });
  };

  return {
    get state() {
      return state;
    },
    invoke(method, input) {
      const key = callKey(method, input);
      const answer = prefetched.get(key);
      if (!answer) return invoke(method, input);
      prefetched.delete(key);
      return answer.then((envelope) => (envelope.ok ? envelope : invoke(method, input)));
    },
    prefetch(method, input) {
      const answer = invoke(method, input);
      prefetched.set(callKey(method, input), answer);
      return answer.then(() => undefined);
    },
    subscribe(event, listener) {
      const set = eventListeners.get(event) ?? new Set();
      eventListeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    onDidChangeState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    close() {
      closed = true;
      clearTimeout(retryTimer);
      for (const call of [...early]) call.fail();
      socket?.close();
    },
  };
}

const namespaceOf = (name: string): string => name.slice(0, name.indexOf('.') + 1);

const callKey = (method: MethodName, input: unknown): string => `${method}\n${JSON.stringify(input) ?? ''}`;
