import os from 'node:os';
import path from 'node:path';
import type { ImportFormat } from './config-import';

export interface LocationEnvironment {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  homedir: string;
}

/** Where each app keeps its MCP configuration for the current user. */
export function importLocation(
  app: ImportFormat,
  { env, platform, homedir }: LocationEnvironment = {
    env: process.env,
    platform: process.platform,
    homedir: os.homedir(),
  },
): string {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  const appData =
    platform === 'darwin'
      ? join(homedir, 'Library', 'Application Support')
      : platform === 'win32'
        ? (env.APPDATA ?? join(homedir, 'AppData', 'Roaming'))
        : env.XDG_CONFIG_HOME?.trim() || join(homedir, '.config');
  switch (app) {
    case 'claude-desktop':
      return join(appData, 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return join(homedir, '.cursor', 'mcp.json');
    case 'vscode':
      return join(appData, 'Code', 'User', 'mcp.json');
  }
}
