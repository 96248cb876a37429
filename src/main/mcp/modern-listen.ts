import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * A 2026-07-28 server's notifications through `subscriptions/listen` (docs/dev/protocol-2026.md, "Notifications"):
 * the revision has no unsolicited notifications and no `resources/subscribe`, so the host keeps one listen stream
 * open per session whose filter asks for what a 2025-11-25 server sends by itself (tool-list changes, when the server
 * offers them) and for the resources the host subscribed to. The SDK v2 client delivers what arrives on it to the
 * notification handlers `newModernClient` set, the same ones a 2025-11-25 session's notifications reach, so the host
 * hears both revisions the same way. A stream the server drops is opened again.
 */
export interface ModernListener {
  /** Opens the stream, when there is anything to listen for. */
  start(): Promise<void>;
  /** Adds `uri` to the stream's resource subscriptions; resolves once the server acknowledged it. */
  subscribe(uri: string, timeoutMs?: number): Promise<void>;
  unsubscribe(uri: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** How long after the server dropped the stream it is opened again. */
const RELISTEN_DELAY_MS = 1000;

export function createModernListener(client: Client, onNotice: (text: string) => void): ModernListener {
  const uris = new Set<string>();
  let current: McpSubscription | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;

  const filter = (): SubscriptionFilter | undefined => {
    const offers = client.getServerCapabilities();
    const wanted: SubscriptionFilter = {
      ...(offers?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(offers?.resources?.subscribe && uris.size > 0 ? { resourceSubscriptions: [...uris] } : {}),
    };
    return Object.keys(wanted).length > 0 ? wanted : undefined;
  };

  // One stream at a time: the new one is acknowledged before the old one is closed, so nothing falls between them.
  const reopen = (timeoutMs?: number): Promise<void> => {
    const next = queue.then(async () => {
      if (closed || client.transport === undefined) return;
      const previous = current;
      const wanted = filter();
      current = undefined;
      if (wanted) {
        const opened = await client.listen(wanted, timeoutMs ? { timeout: timeoutMs } : {});
        current = opened;
        void opened.closed.then((cause) => {
          if (cause !== 'remote' || closed || current !== opened || client.transport === undefined) return;
          onNotice('The server ended its subscriptions/listen stream; opening it again.');
          retry = setTimeout(() => void reopen().catch((error: unknown) => noticeFailure(error)), RELISTEN_DELAY_MS);
          retry.unref?.();
        });
      }
      await previous?.close();
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const noticeFailure = (error: unknown): void => {
    if (!closed) onNotice(`subscriptions/listen failed: ${error instanceof Error ? error.message : String(error)}`);
  };

  return {
    start: () => reopen().catch((error: unknown) => noticeFailure(error)),
    async subscribe(uri, timeoutMs) {
      uris.add(uri);
      try {
        await reopen(timeoutMs);
      } catch (error) {
        uris.delete(uri);
        throw error;
      }
      if (!current?.honoredFilter.resourceSubscriptions?.includes(uri))
        throw new McpError(ErrorCode.InvalidRequest, `The server did not accept a subscription to ${uri}.`);
    },
    async unsubscribe(uri, timeoutMs) {
      if (!uris.delete(uri)) return;
      await reopen(timeoutMs);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = current;
      current = undefined;
      await last?.close().catch(() => undefined);
    },
  };
}
