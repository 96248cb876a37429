import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';
import type crossSpawn from 'cross-spawn';
import { createLineSplitter, formatBytes } from './log-ring';
import { signalProcessTree } from './process-tree';

// Through require: an ES import of this CommonJS package makes Node parse its source for export names first.
const spawn = createRequire(import.meta.url)('cross-spawn') as typeof crossSpawn;

/** One JSON-RPC message may be this large; a server that sends more without a line break is stopped. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long a server gets between SIGTERM and SIGKILL when it is stopped. */
export const STOP_GRACE_MS = 2000;

export interface ProcessTransportOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  maxMessageBytes?: number;
  stopGraceMs?: number;
  /** Each line the server writes to stderr. */
  onStderrLine(line: string): void;
  /** What the transport noticed about the process (bad output, exit), in words for the server's log. */
  onNotice(text: string): void;
  /** The process is gone (or never started). */
  onExit?(): void;
}

/**
 * The SDK's stdio transport, reshaped for a host that must never leave a process behind: the server
 * runs detached in its own process group (killed as a tree), its exit is reported with its code,
 * a line on stdout that is not JSON-RPC is logged and passed over, and a stdout that grows past
 * `maxMessageBytes` without a line break stops the server instead of filling memory. Messages are
 * framed and parsed by the SDK's own `serializeMessage` / `deserializeMessage`.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private exitDescription: string | undefined;
  private closeReason: string | undefined;
  private stopRequested = false;
  private exitSignal: NodeJS.Signals | null = null;
  private closed = false;
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly options: ProcessTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the connection ended, once it has: "exited with code 3", "was stopped: it wrote more than 64 MiB…"… */
  get endReason(): string | undefined {
    if (this.closeReason) return this.closeReason;
    // Ended by our own signal: we stopped it. Exited by itself (even while we were stopping it): say how.
    if (this.stopRequested && (this.exitSignal !== null || this.exitDescription === undefined)) return 'was stopped';
    return this.exitDescription;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', (error: NodeJS.ErrnoException) => {
        const message =
          error.code === 'ENOENT'
            ? `The command "${this.options.command}" was not found.`
            : `The command "${this.options.command}" could not be started: ${error.message}`;
        this.exitDescription = message;
        reject(new SpawnError(message, error.code));
        this.finish();
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exitSignal = signal;
        this.exitDescription = signal ? `was ended by ${signal}` : `exited with code ${code}`;
        // Whatever the server started dies with it.
        if (child.pid !== undefined) signalProcessTree(child.pid, 'SIGKILL');
        // Let stdout drain (a last response may still be in the pipe), but do not wait for it forever:
        // a grandchild that inherited the pipe could hold it open.
        const drained = new Promise((done) =>
          child.stdout?.readableEnded ? done(null) : child.stdout?.once('end', done),
        );
        void Promise.race([drained, new Promise((done) => setTimeout(done, 200).unref())]).then(() => this.finish());
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      const stderr = createLineSplitter((line) => this.options.onStderrLine(line));
      child.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
      child.stderr?.on('end', () => stderr.end());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) throw new Error('Not connected');
    if (!stdin.write(serializeMessage(message))) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stdin.off('drain', done);
          stdin.off('close', done);
          resolve();
        };
        stdin.once('drain', done);
        stdin.once('close', done);
      });
    }
  }

  /** Stops the server: closes its stdin, then SIGTERM to its process tree, then SIGKILL after the grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      this.finish();
      return;
    }
    this.stopRequested = true;
    child.stdin?.end();
    signalProcessTree(child.pid, 'SIGTERM');
    const grace = this.options.stopGraceMs ?? STOP_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), grace))),
    ]);
    clearTimeout(timer);
    if (timedOut) signalProcessTree(child.pid, 'SIGKILL');
    await this.exited;
    this.finish();
  }

  /** Kills the process tree at once, synchronously: for a host that is exiting now. */
  killNow(): void {
    const pid = this.child?.pid;
    if (pid !== undefined && this.child?.exitCode === null && this.child.signalCode === null)
      signalProcessTree(pid, 'SIGKILL');
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10);
    // Buffers are joined only when a line is complete, so a large message costs one copy, not one per chunk.
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending.length = 0;
      this.pendingBytes = 0;
      this.handleLine(line);
      if (this.closed) return;
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      const limit = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
      if (this.pendingBytes > limit) {
        this.pending.length = 0;
        this.pendingBytes = 0;
        this.closeReason = `was stopped: it wrote more than ${formatBytes(limit)} to stdout without a line break`;
        this.options.onNotice(`The server ${this.closeReason}.`);
        this.onerror?.(new Error(`The server ${this.closeReason}.`));
        void this.close();
      }
    }
  }

  private handleLine(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch {
      const preview = text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
      this.options.onNotice(`Ignored a line on stdout that is not a JSON-RPC message: ${preview}`);
      return;
    }
    this.onmessage?.(message);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.onExit?.();
    this.onclose?.();
  }
}

/** The command could not be started at all (not found, not executable): retrying will not help. */
export class SpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SpawnError';
  }
}
