import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BROWSER_PORT_FILE, preferredPort, rememberPort } from './browser-port';
import { listenPreferred } from './browser-listen';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-port-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A real listener on 127.0.0.1 (port 0 = any free one). */
const occupy = (port = 0): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const portOf = (server: net.Server): number => (server.address() as net.AddressInfo).port;
const close = (server: net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe('a stable browser-mode port per data folder', () => {
  it('tries the default first, then the port the folder listened on last; a bad file is ignored', () => {
    const dir = tempDir();
    expect(preferredPort(dir, 4790)).toBe(4790);
    rememberPort(dir, 51234);
    expect(preferredPort(dir, 4790)).toBe(51234);
    fs.writeFileSync(path.join(dir, BROWSER_PORT_FILE), '{not json');
    expect(preferredPort(dir, 4790)).toBe(4790);
    fs.writeFileSync(path.join(dir, BROWSER_PORT_FILE), '{"port": 70000}');
    expect(preferredPort(dir, 4790)).toBe(4790);
  });

  it('listens on the kept port again after a restart, and on another (kept from then on) when it is taken', async () => {
    const dir = tempDir();
    const free = await occupy();
    const port = portOf(free);
    await close(free);
    rememberPort(dir, port);

    const first = await listenPreferred({
      dataDir: dir,
      fallback: port,
      given: undefined,
      start: occupy,
      boundPort: portOf,
    });
    expect(portOf(first)).toBe(port);
    await close(first);
    const again = await listenPreferred({
      dataDir: dir,
      fallback: 1,
      given: undefined,
      start: occupy,
      boundPort: portOf,
    });
    expect(portOf(again)).toBe(port);

    // Taken (the listener above still holds it): any free port, kept for the next start.
    const other = await listenPreferred({
      dataDir: dir,
      fallback: 1,
      given: undefined,
      start: occupy,
      boundPort: portOf,
    });
    expect(portOf(other)).not.toBe(port);
    expect(preferredPort(dir, 1)).toBe(portOf(other));
    await close(again);
    await close(other);
  });

  it('a port given with --port is used as given, never kept, and a taken one is an error', async () => {
    const dir = tempDir();
    const taken = await occupy();
    await expect(
      listenPreferred({ dataDir: dir, fallback: 4790, given: portOf(taken), start: occupy, boundPort: portOf }),
    ).rejects.toThrow(`Port ${portOf(taken)} is in use. Choose another with --port N, or --port 0 for any free port.`);
    const any = await listenPreferred({ dataDir: dir, fallback: 4790, given: 0, start: occupy, boundPort: portOf });
    expect(fs.existsSync(path.join(dir, BROWSER_PORT_FILE))).toBe(false);
    await close(any);
    await close(taken);
  });
});
