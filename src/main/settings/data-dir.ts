import os from 'node:os';
import path from 'node:path';
import { APP_NAME } from '../../shared/app-name';

export interface DataDirEnvironment {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  homedir: string;
}

/**
 * The folder that holds the database and settings: `WORKBENCH_HOME` when set, else the OS's
 * app-data folder (the same one Electron's `app.getPath('userData')` uses), so the app, the CLI
 * and browser mode share one set of data.
 */
export function resolveDataDir(
  { env, platform, homedir }: DataDirEnvironment = {
    env: process.env,
    platform: process.platform,
    homedir: os.homedir(),
  },
): string {
  const override = env.WORKBENCH_HOME?.trim();
  if (override) return path.resolve(override);
  switch (platform) {
    case 'darwin':
      return path.join(homedir, 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return path.win32.join(env.APPDATA ?? path.win32.join(homedir, 'AppData', 'Roaming'), APP_NAME);
    default:
      return path.join(env.XDG_CONFIG_HOME?.trim() || path.join(homedir, '.config'), APP_NAME);
  }
}
