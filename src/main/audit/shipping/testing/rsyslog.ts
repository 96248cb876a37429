/**
 * A real rsyslogd for the shipping tests and the audit-ship benchmark: a plain foreground process with its own
 * configuration, listening on a loopback TCP port and writing each received message, raw, as one line of a file.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const CANDIDATES = ['/usr/sbin/rsyslogd', '/sbin/rsyslogd', '/usr/local/sbin/rsyslogd'];

/** The rsyslogd binary, or null when it is not installed (the tests then say they are skipped and why). */
export function findRsyslogd(): string | null {
  for (const candidate of CANDIDATES) if (fs.existsSync(candidate)) return candidate;
  try {
    return execFileSync('sh', ['-c', 'command -v rsyslogd'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export interface Rsyslog {
  readonly port: number;
  /** Where every received message is written, one per line. */
  readonly file: string;
  /** Starts the daemon (again) on the same port and file; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGTERM, and waits until it has exited (rsyslog writes out what it received first). */
  stop(): Promise<void>;
  /** The received messages so far. */
  lines(): string[];
}

export async function createRsyslog(dir: string, binary: string): Promise<Rsyslog> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const file = path.join(dir, 'received.log');
  const conf = path.join(dir, 'rsyslog.conf');
  const pidFile = path.join(dir, 'rsyslogd.pid');
  fs.writeFileSync(
    conf,
    [
      `global(workDirectory="${dir}" maxMessageSize="1m")`,
      'module(load="imtcp")',
      // %rawmsg% is the message exactly as received (the octet count taken off): the test parses it itself.
      'template(name="raw" type="string" string="%rawmsg%\\n")',
      'ruleset(name="audit") { action(type="omfile" file="' + file + '" template="raw") }',
      `input(type="imtcp" port="${port}" address="127.0.0.1" ruleset="audit")`,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  let log = '';

  const start = async (): Promise<void> => {
    fs.rmSync(pidFile, { force: true });
    // The receiver is another machine in real life: here, on the same 2 cores, it gets only the CPU our own
    // threads leave (nice 19), so the audit-ship benchmark measures what shipping costs us (nice execs rsyslogd).
    const started = spawn('nice', ['-n', '19', binary, '-n', '-f', conf, '-i', pidFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child = started;
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null) throw new Error(`rsyslogd exited (${started.exitCode}): ${log}`);
      if (Date.now() > deadline) throw new Error(`rsyslogd did not listen on ${port}: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  return {
    port,
    file,
    start,
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
    lines() {
      if (!fs.existsSync(file)) return [];
      const text = fs.readFileSync(file, 'utf8');
      return text === '' ? [] : text.replace(/\n$/, '').split('\n');
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
