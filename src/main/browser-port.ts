import fs from 'node:fs';
import path from 'node:path';

/** Where browser mode keeps the port it last listened on for a data folder (docs/user/browser-mode.md). */
export const BROWSER_PORT_FILE = 'browser-port.json';

/**
 * The port to try first for this data folder: the one it listened on last, so that the page's origin — and what the
 * browser keeps for it (the first-approval explainer, the notification offer and permission) — survives a restart;
 * `fallback` when none was kept or the file cannot be read (a bad file is ignored and replaced, never fatal).
 */
export function preferredPort(dataDir: string, fallback: number): number {
  try {
    const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, BROWSER_PORT_FILE), 'utf8')) as { port?: unknown };
    return typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65535 ? port : fallback;
  } catch {
    return fallback;
  }
}

/** Keeps the port browser mode listens on now for the next start; a failure to write only costs that. */
export function rememberPort(dataDir: string, port: number): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = path.join(dataDir, BROWSER_PORT_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, `${JSON.stringify({ port })}\n`, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    // The next start tries the default port again.
  }
}
