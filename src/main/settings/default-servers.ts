import path from 'node:path';

/**
 * A fresh install's `mcpServers` section and the data-dir folder its Files server works in. The settings own them:
 * the settings store starts a new file with them and a settings migration reads them (docs/user/mcp-servers.md).
 */

export const DEFAULT_SERVER_NAME = 'Files';
export const SANDBOX_FOLDER_NAME = 'sandbox';

export function sandboxDir(dataDir: string): string {
  return path.join(dataDir, SANDBOX_FOLDER_NAME);
}

/** A fresh install's servers: "Files", the bundled filesystem server rooted at `<data dir>/sandbox`. */
export function defaultMcpServers(dataDir: string) {
  return {
    [DEFAULT_SERVER_NAME]: {
      package: '@modelcontextprotocol/server-filesystem' as const,
      args: [sandboxDir(dataDir)],
      enabled: true,
      displayName: 'Files',
    },
  };
}
