import { spawn } from 'node:child_process';

/**
 * Opens a URL in the person's default browser, when this machine has a desktop to show one.
 * Returns false (and does nothing) where there is none, such as a server or CI.
 */
export function openInDefaultBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const command = browserCommand(url, process.platform, env);
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

export function browserCommand(
  url: string,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): { file: string; args: string[] } | null {
  switch (platform) {
    case 'darwin':
      return { file: 'open', args: [url] };
    case 'win32':
      return { file: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
    default:
      return env.DISPLAY || env.WAYLAND_DISPLAY ? { file: 'xdg-open', args: [url] } : null;
  }
}
