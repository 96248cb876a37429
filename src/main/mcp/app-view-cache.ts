import type { McpAppView } from '../../shared/mcp-apps';

/**
 * The views read, kept per server name, identity and `ui://` URI (docs/user/mcp-apps.md#reading-a-view), so a view
 * shown again (a chat opened again, a block mounted again) is not read from its server again before it shows. A cached
 * view is read again in the background each time it is served, so a server that changed it without saying so is seen
 * by the next showing, where its pin check notices the change. Dropped at once when the server says a resource changed
 * (`notifications/resources/updated`), when its tools change, and when it leaves `ready` (a reconnect, a restart, a
 * stop, a removal); another identity under the name never meets the earlier one's views (the key holds it).
 */
export interface AppViewCache {
  /** The view, from the cache (read again behind it) or from its server. */
  read(
    key: { serverName: string; identity: string; uri: string | undefined },
    load: () => Promise<McpAppView>,
  ): Promise<McpAppView>;
  /** Drops a server's views (of one URI when given). */
  drop(serverName: string, uri?: string): void;
}

export function createAppViewCache(onError: (error: unknown) => void = () => {}): AppViewCache {
  const views = new Map<string, McpAppView>();
  const keyOf = (serverName: string, identity: string, uri: string): string =>
    JSON.stringify([serverName, identity, uri]);
  const refreshing = new Set<string>();
  return {
    async read({ serverName, identity, uri }, load) {
      if (uri === undefined) return load();
      const key = keyOf(serverName, identity, uri);
      const cached = views.get(key);
      if (cached) {
        if (!refreshing.has(key)) {
          refreshing.add(key);
          load()
            .then(
              (fresh) => {
                if (views.get(key) === cached && fresh.uri === uri) views.set(key, fresh);
              },
              (error: unknown) => {
                views.delete(key);
                onError(error);
              },
            )
            .finally(() => refreshing.delete(key));
        }
        return cached;
      }
      const view = await load();
      if (view.uri === uri) views.set(key, view);
      return view;
    },
    drop(serverName, uri) {
      for (const key of [...views.keys()]) {
        const [name, , viewUri] = JSON.parse(key) as [string, string, string];
        if (name === serverName && (uri === undefined || viewUri === uri)) views.delete(key);
      }
    },
  };
}
