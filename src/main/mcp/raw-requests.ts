import type { JSONRPCMessage, Transport as TransportV2 } from '@modelcontextprotocol/client';

/**
 * The host's own JSON-RPC requests on a 2026-07-28 session's transport, beside the SDK v2 client's
 * (docs/dev/protocol-2026.md#tasks-on-2026-07-28): the tasks extension's `tools/call` and `tasks/*`, which the SDK's
 * codec refuses (a task handle is an unsupported result type there). Each request has an id of its own, a string the
 * SDK never uses (its ids are numbers, and it reads every answer's id as a number, so a string of ours is never one of
 * its own), and its answer is taken off the transport before the SDK sees it. The requests carry the `_meta` envelope
 * of the SDK's own requests (`envelope`), as the session's first request sent it.
 */

/** The prefix of every raw request's id: a string that is never a number. */
export const RAW_ID_PREFIX = 'workbench-raw-';

/** A JSON-RPC answer as the tasks extension's client (`@modelcontextprotocol/ext-tasks`) takes it. */
export type RawResponse =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** The session closed with the request unanswered (the SDK's `ConnectionClosed`, -32000). */
export class RawConnectionClosed extends Error {
  override readonly name = 'RawConnectionClosed';
  readonly code = -32000;
}

/** What the SDK's requests carried in `params._meta` of a 2026-07-28 request: who the client is, what it offers. */
export interface RequestEnvelope {
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
}

/** A `notifications/progress` of a raw request, as the server sent it. */
export interface RawProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface RawRequests {
  /**
   * Sends one request and waits for its answer; rejects with `RawConnectionClosed` when the session closes first. With
   * `onProgress`, the request carries a progress token (its own id), and the server's progress for it goes there.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    onProgress?: (progress: RawProgress) => void,
  ): Promise<RawResponse>;
  /** The SDK's envelope, once it sent a request (it always has, by the time a tool is called: `tools/list`). */
  envelope(): RequestEnvelope | undefined;
  /** Whether the session closed; every request then fails at once. */
  readonly closed: boolean;
}

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The raw path of one session. `send` is the transport's own send, outside the door of the SDK's legs
 * (modern-client.ts): each raw leg passes its call's door where it is made (modern-tasks.ts). `notice` takes a line for
 * the server's log. `observe` is given each message the SDK sends (to learn its envelope); `attach` hooks the path onto
 * the transport once the v2 client is connected to it (its `onmessage` and `onclose` are the client's by then).
 */
export function createRawRequests(
  send: (message: JSONRPCMessage) => Promise<void>,
  notice: (text: string) => void,
): RawRequests & { observe(message: unknown): void; attach(transport: TransportV2): void } {
  const pending = new Map<string, { resolve(response: RawResponse): void; reject(error: Error): void }>();
  /** Where the progress of each raw request that asked for it goes, by its token (the request's id). */
  const progressOf = new Map<string, (progress: RawProgress) => void>();
  let next = 1;
  let closed = false;
  let envelope: RequestEnvelope | undefined;

  const attach = (transport: TransportV2): void => {
    const sdkMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as { id?: unknown }).id;
      const method = (message as { method?: unknown }).method;
      if (method === 'notifications/progress') {
        const params = (message as { params?: unknown }).params;
        const token = isRecord(params) ? params['progressToken'] : undefined;
        if (typeof token === 'string' && token.startsWith(RAW_ID_PREFIX)) {
          // Ours: never the SDK's, whose tokens are numbers. A malformed one is passed over.
          const { progress, total, message: text } = params as Record<string, unknown>;
          if (typeof progress === 'number')
            progressOf.get(token)?.({
              progress,
              ...(typeof total === 'number' ? { total } : {}),
              ...(typeof text === 'string' ? { message: text } : {}),
            });
          return;
        }
      }
      if (typeof id !== 'string' || !id.startsWith(RAW_ID_PREFIX) || method !== undefined) {
        sdkMessage?.(message, extra);
        return;
      }
      const waiting = pending.get(id);
      if (!waiting) {
        notice(`Ignored an answer to the request "${id}", which is not waiting for one (unknown or already answered).`);
        return;
      }
      const { result, error } = message as { result?: unknown; error?: unknown };
      if (isRecord(result)) {
        pending.delete(id);
        waiting.resolve({ kind: 'result', result });
        return;
      }
      if (isRecord(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
        pending.delete(id);
        const { code, message: text, data } = error;
        waiting.resolve({ kind: 'error', error: { code, message: text, ...(data !== undefined ? { data } : {}) } });
        return;
      }
      notice(`Ignored a malformed answer to the request "${id}": neither a result object nor an error.`);
    };
    const sdkClose = transport.onclose;
    transport.onclose = () => {
      closed = true;
      const waiting = [...pending.values()];
      pending.clear();
      for (const request of waiting)
        request.reject(new RawConnectionClosed('The connection closed before the server answered.'));
      sdkClose?.();
    };
  };

  return {
    attach,
    get closed() {
      return closed;
    },
    envelope: () => envelope,
    /** Reads the envelope off a request the SDK sends (modern-client.ts calls it for each message). */
    observe(message) {
      if (envelope) return;
      const meta = (message as { params?: { _meta?: unknown } }).params?._meta;
      if (!isRecord(meta)) return;
      const protocolVersion = meta[PROTOCOL_VERSION_META];
      const clientInfo = meta[CLIENT_INFO_META];
      const clientCapabilities = meta[CLIENT_CAPABILITIES_META];
      if (typeof protocolVersion === 'string' && isRecord(clientInfo) && isRecord(clientCapabilities))
        envelope = { protocolVersion, clientInfo, clientCapabilities };
    },
    async request(method, params, signal, onProgress) {
      if (closed) throw new RawConnectionClosed('The connection is closed.');
      signal?.throwIfAborted();
      const id = `${RAW_ID_PREFIX}${next++}`;
      if (onProgress) {
        progressOf.set(id, onProgress);
        params = {
          ...params,
          _meta: { ...(params['_meta'] as Record<string, unknown> | undefined), progressToken: id },
        };
      }
      const answer = new Promise<RawResponse>((resolve, reject) => pending.set(id, { resolve, reject }));
      // The answer may be refused (the connection closed, the signal aborted) while the request is still being sent,
      // before anything awaits it: it is awaited below, or the send's own error is thrown instead.
      answer.catch(() => undefined);
      const stop = (): void => {
        const waiting = pending.get(id);
        if (!waiting) return;
        pending.delete(id);
        waiting.reject(signal?.reason instanceof Error ? signal.reason : new Error('The request was aborted.'));
        // The server may stop working on it (2026-07-28 keeps notifications/cancelled).
        void send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'The client stopped waiting.' },
        } as JSONRPCMessage).catch(() => undefined);
      };
      signal?.addEventListener('abort', stop, { once: true });
      try {
        await send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
        return await answer;
      } catch (error) {
        pending.delete(id);
        throw error;
      } finally {
        signal?.removeEventListener('abort', stop);
        progressOf.delete(id);
      }
    },
  };
}
