import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';

/** The MCP servers the person marked trusted, kept current. */
export function useTrustedServers(api: WorkbenchApi): ReadonlySet<string> {
  const [trusted, setTrusted] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => {
    let live = true;
    const load = (): void => {
      void api.mcp.list().then(
        ({ servers }) =>
          live && setTrusted(new Set(servers.filter((server) => server.trusted).map((server) => server.name))),
        () => {},
      );
    };
    load();
    const off = api.mcp.onDidChangeServer(load);
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return trusted;
}
