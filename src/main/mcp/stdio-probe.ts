import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ModernConnection, ModernConnectOptions } from './modern-client';
import { modernClientModule } from './modern-module';
import type { ProcessTransport } from './process-transport';

/**
 * A stdio server asked `server/discover` on its own process, before anything else (docs/dev/protocol-2026.md,
 * "stdio"): the SDK v2 client probes in place on a transport that is not its own `StdioClientTransport`, so the
 * process the host started (sandbox, process group) is the one that is asked. A server that offers 2026-07-28 stays
 * on the v2 client; any other answer hands the same running process to the 1.x client. Only a server that exits
 * when asked needs a second start, and only a server that does not answer at all costs the probe's timeout.
 */

/** The SDK's probe ids (its `ProbeWindow`): strings, never the numeric ids of either client's own requests. */
const PROBE_ID = /^server-discover-probe-\d+$/;

/** How long a stdio server has to answer `server/discover` before it is taken for a 2025-11-25 server. */
export const STDIO_PROBE_TIMEOUT_MS = 10_000;

/**
 * One client's hold on a server's `ProcessTransport`. The probe's lease leaves the process running when the v2 client
 * lets go of it (`holdOnClose`), so the 1.x client can take it over with a lease of its own; that one drops the late
 * answer to a probe that timed out.
 */
export class TransportLease implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private released = false;

  constructor(
    private readonly inner: ProcessTransport,
    private readonly options: { startsProcess: boolean; holdOnClose: boolean; dropProbeAnswers: boolean },
  ) {}

  get pid(): number | undefined {
    return this.inner.pid;
  }

  /** From now on `close` stops the process (the probe found a 2026-07-28 server and the v2 client keeps it). */
  keep(): void {
    this.options.holdOnClose = false;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      if (this.released) return;
      if (this.options.dropProbeAnswers && isProbeAnswer(message)) return;
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => {
      if (!this.released) this.onerror?.(error);
    };
    this.inner.onclose = () => {
      if (!this.released) this.onclose?.();
    };
    if (this.options.startsProcess) await this.inner.start();
  }

  /** Handed straight on, without an async frame of its own: it is on every call's path (mcp-call-overhead). */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.released) return Promise.reject(new Error('Not connected'));
    return this.inner.send(message);
  }

  async close(): Promise<void> {
    if (!this.options.holdOnClose) {
      await this.inner.close();
      return;
    }
    if (this.released) return;
    this.released = true;
    this.onclose?.();
  }
}

function isProbeAnswer(message: JSONRPCMessage): boolean {
  const { id, method } = message as { id?: unknown; method?: unknown };
  return method === undefined && typeof id === 'string' && PROBE_ID.test(id);
}

export type StdioProbeOutcome =
  | { kind: 'modern'; opened: ModernConnection; lease: TransportLease }
  /** The process is running and was not taken for a 2026-07-28 server: `why` says what it answered. */
  | { kind: 'legacy'; why: string }
  /** The process ended while it was asked (`reason`: how, from the transport). */
  | { kind: 'exited'; reason: string }
  /** It could not be started at all, or the start was given up: `error` as thrown. */
  | { kind: 'failed'; error: unknown };

/** Starts the server's process through a probe lease and asks it `server/discover`, pinned to 2026-07-28. */
export async function probeStdio(
  transport: ProcessTransport,
  options: ModernConnectOptions & { probeTimeoutMs: number },
): Promise<StdioProbeOutcome> {
  const { connectModern, NotModernError } = await modernClientModule();
  const lease = new TransportLease(transport, { startsProcess: true, holdOnClose: true, dropProbeAnswers: false });
  try {
    const opened = await connectModern(lease as never, { ...options, pinned: true });
    lease.keep();
    return { kind: 'modern', opened, lease };
  } catch (error) {
    const ended = transport.endReason;
    if (transport.pid === undefined || options.signal?.aborted || ended === 'was stopped')
      return { kind: 'failed', error };
    if (ended !== undefined) return { kind: 'exited', reason: ended };
    if (error instanceof NotModernError) return { kind: 'legacy', why: error.message };
    const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
    return {
      kind: 'legacy',
      why: timedOut
        ? `no answer to server/discover within ${options.probeTimeoutMs} ms`
        : (error as Error).message || String(error),
    };
  }
}

/** The lease the 1.x client takes a probed process over with: it stops the process on close. */
export function handOver(transport: ProcessTransport): TransportLease {
  return new TransportLease(transport, { startsProcess: false, holdOnClose: false, dropProbeAnswers: true });
}
