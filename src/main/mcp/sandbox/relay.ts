import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The only way out of a contained server's network namespace: one Unix socket per granted `host:port`, bound into the
 * sandbox, each relayed by the host to exactly that destination and nowhere else. Which socket goes where is fixed
 * when the server starts; a changed profile restarts the server (docs/user/sandbox.md#network).
 */
export interface NetworkRelays {
  /** The FIFO the reporters write block reports to (docs/user/sandbox.md#blocks). */
  readonly channel: string;
  /** The socket of each granted destination, keyed `host:port`. */
  readonly sockets: Readonly<Record<string, string>>;
  /** The folder that holds the sockets and the report channel (bound into the sandbox). */
  readonly folder: string;
  close(): void;
}

export async function openNetworkRelays(
  hosts: readonly string[],
  onReportLine: (line: string) => void,
): Promise<NetworkRelays> {
  // Under the system's temporary folder: a socket's path must stay short (108 bytes on Linux).
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-sbx-'));
  const servers: net.Server[] = [];
  const sockets: Record<string, string> = {};
  const channel = path.join(folder, 'reports');
  let reader: net.Socket | undefined;
  const close = (): void => {
    for (const server of servers) server.close();
    reader?.destroy();
    fs.rmSync(folder, { recursive: true, force: true });
  };
  try {
    execFileSync('mkfifo', ['-m', '600', channel]);
    // Opened for reading and writing, so it never reads end-of-file while no reporter has it open.
    const fd = fs.openSync(channel, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    reader = new net.Socket({ fd, readable: true, writable: false });
    reader.unref();
    let pending = '';
    reader.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = (lines.pop() ?? '').slice(-8192);
      for (const line of lines) onReportLine(line);
    });
    reader.on('error', () => undefined);
    for (const [index, destination] of hosts.entries()) {
      const split = destination.lastIndexOf(':');
      const host = destination.slice(0, split).replace(/^\[|\]$/g, '');
      const port = Number(destination.slice(split + 1));
      const file = path.join(folder, `${index}.sock`);
      const server = net.createServer((inside) => {
        const outside = net.connect({ host, port });
        inside.pipe(outside).pipe(inside);
        const end = (): void => {
          inside.destroy();
          outside.destroy();
        };
        inside.on('error', end);
        outside.on('error', end);
        inside.on('close', end);
        outside.on('close', end);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(file, () => resolve());
      });
      server.unref();
      servers.push(server);
      sockets[destination] = file;
    }
  } catch (error) {
    close();
    throw error;
  }
  return { sockets, folder, channel, close };
}
