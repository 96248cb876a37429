import { spawn as spawnProcess, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureOwnerOnlyFolder, OWNER_ONLY_FILE } from '../storage/owner-only';

/** The folder, inside the data folder, that holds the redirect pages; only its owner may enter it. */
export const REDIRECT_FOLDER_NAME = 'browser-open';

/** A redirect page on disk; `remove()` deletes it (safe to call twice). */
export interface RedirectPage {
  readonly file: string;
  /** The `file://` address of the page: what goes on the browser's command line. */
  readonly fileUrl: string;
  remove(): void;
}

/**
 * Writes a page that sends the browser on to `url` (which carries the token), readable by its owner only:
 * the folder is 0700 and the file 0600, whatever the umask. The browser is then opened on the FILE, so the
 * token never appears on a command line, where /proc/PID/cmdline shows it to every local user. Jupyter
 * does the same (jupyter_server's "browser open file"); see docs/user/browser-mode.md, "Browser mode's token".
 */
export function writeRedirectPage(dataDir: string, url: string, name: string | number = process.pid): RedirectPage {
  const folder = path.join(dataDir, REDIRECT_FOLDER_NAME);
  ensureOwnerOnlyFolder(folder);
  const file = path.join(folder, `browser-${name}.html`);
  // A leftover of an earlier process with this pid: never write through whatever is there (a link).
  fs.rmSync(file, { force: true });
  const descriptor = fs.openSync(file, 'wx', OWNER_ONLY_FILE);
  try {
    fs.fchmodSync(descriptor, OWNER_ONLY_FILE);
    fs.writeFileSync(descriptor, redirectPageHtml(url));
  } finally {
    fs.closeSync(descriptor);
  }
  return {
    file,
    fileUrl: pathToFileURL(file).href,
    remove: () => fs.rmSync(file, { force: true }),
  };
}

/** The page: a meta refresh, and a script for browsers that wait on it; a link when both are off. */
export function redirectPageHtml(url: string): string {
  const attribute = escapeHtml(url);
  // JSON is a JS string literal; `<` escaped so no `</script>` can end the script early.
  const literal = JSON.stringify(url).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0;url=${attribute}">
<title>Opening AI Workbench</title>
<script>location.replace(${literal});</script>
</head>
<body>
<p>Opening AI Workbench… If nothing happens, <a href="${attribute}">open it here</a>.</p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type Spawn = (file: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface OpenOptions {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** Tests pass a fake to see the command line. */
  spawn?: Spawn;
}

/**
 * Opens an address (here: the redirect page's `file://` address, never one with a secret in it) in the
 * person's default browser, when this machine has a desktop to show one. Returns false (and does nothing)
 * where there is none, such as a server or CI.
 */
export function openInDefaultBrowser(
  target: string,
  { platform = process.platform, env = process.env, spawn = spawnProcess }: OpenOptions = {},
): boolean {
  const command = browserCommand(target, platform, env);
  if (!command) return false;
  try {
    const child = spawn(command.file, command.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** How long a sign-in's redirect page stays on disk: the browser reads it at once; then it is gone. */
export const SIGN_IN_PAGE_KEEP_MS = 120_000;

/**
 * Opens an address that carries a secret of its own — an OAuth authorization URL: its `state`, PKCE challenge,
 * client id and loopback port would let another local process finish the sign-in with its own code — through a
 * one-time redirect page in the owner-only folder, as browser mode opens its own address: the command line (which
 * every local user can read in /proc/PID/cmdline) holds only the page's `file://` address, useless to anyone who
 * cannot read the file (docs/user/mcp-oauth.md#signing-in). The page is removed after `keepMs` or at exit.
 * False (and nothing written) where there is no desktop to show it.
 */
export function openThroughRedirectPage(
  dataDir: string,
  url: string,
  { keepMs = SIGN_IN_PAGE_KEEP_MS, ...options }: OpenOptions & { keepMs?: number } = {},
): boolean {
  if (!browserCommand('file:///', options.platform ?? process.platform, options.env ?? process.env)) return false;
  const page = writeRedirectPage(dataDir, url, `sign-in-${randomBytes(12).toString('hex')}`);
  if (!openInDefaultBrowser(page.fileUrl, options)) {
    page.remove();
    return false;
  }
  const remove = (): void => {
    clearTimeout(timer);
    process.off('exit', remove);
    page.remove();
  };
  const timer = setTimeout(remove, keepMs);
  timer.unref();
  process.on('exit', remove);
  return true;
}

export function browserCommand(
  target: string,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): { file: string; args: string[] } | null {
  switch (platform) {
    case 'darwin':
      return { file: 'open', args: [target] };
    case 'win32':
      return { file: 'rundll32', args: ['url.dll,FileProtocolHandler', target] };
    default:
      return env.DISPLAY || env.WAYLAND_DISPLAY ? { file: 'xdg-open', args: [target] } : null;
  }
}
