/**
 * The real Electron app through Playwright's Electron support (e2e/electron.spec.ts, e2e/mcp-apps-electron.spec.ts).
 * It runs only where an Electron binary exists: on these machines it cannot be downloaded (docs/dev/testing.md), and a
 * spec then skips with `NO_ELECTRON`.
 *
 * The binary is found the way node_modules/electron/index.js finds it, without requiring that
 * package: requiring it without a binary tries to download one and throws.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { _electron as electron, type ElectronApplication } from '@playwright/test';
import { ROOT } from './fixtures';

export const MAIN_ENTRY = path.join(ROOT, 'out', 'main', 'index.js');

/** The Electron executable, or null when this machine has none. */
function electronBinary(): string | null {
  const packageDir = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? path.join(override, relative || 'electron')
    : relative
      ? path.join(packageDir, 'dist', relative)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}

export const ELECTRON_PATH = electronBinary();

/** Why a spec of the Electron app is skipped here. */
export const NO_ELECTRON =
  'No Electron binary on this machine (node_modules/electron/dist is absent; it cannot be downloaded here) — run where Electron can be installed';

/** Launches the built app on its own data directory. */
export function launchElectron(home: string, env: Record<string, string> = {}): Promise<ElectronApplication> {
  return electron.launch({
    executablePath: ELECTRON_PATH ?? undefined,
    args: [MAIN_ENTRY],
    cwd: ROOT,
    env: { ...process.env, WORKBENCH_HOME: home, ...env },
  });
}
