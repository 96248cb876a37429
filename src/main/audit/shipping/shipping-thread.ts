import { Worker } from 'node:worker_threads';
import type { ShippedSinkConfig } from './audit-sink';
import type { FromShippingThread, ShippingThreadData, ToShippingThread } from './shipping-thread-protocol';

/** A batch the thread shipped: `count` rows from `first` to `last` (0: nothing after the cursor). */
export interface ShippedBatch {
  count: number;
  first: number;
  last: number;
}

/**
 * The main thread's handle on the shipping thread (ship-worker.ts): the thread reads the rows on its own
 * read-only connection, encodes them and sends them, so the thread that commits decisions only posts a message
 * per batch and writes the cursor. Started at the first request; a thread that died is started again at the next.
 */
export interface ShippingThread {
  /** Ships the batch after `after` to the sink; rejects with the sink's error (or the thread's death). */
  ship(sink: ShippedSinkConfig, after: number): Promise<ShippedBatch>;
  /** The sink's connection broke (audit-sink.ts `onDidBreak`). */
  onDidBreak(sinkId: string, listener: (reason: string) => void): () => void;
  /** Closes the sink's connection after the batch in flight. */
  close(sinkId: string): Promise<void>;
  /** Ends the thread (every sink should be closed first). */
  terminate(): Promise<void>;
}

export interface ShippingThreadOptions extends ShippingThreadData {
  /** The worker's file: `out/main/audit-ship-worker.js`, or the TypeScript source under tsx (builtAssets()). */
  workerFile: string;
}

export function createShippingThread({ workerFile, ...data }: ShippingThreadOptions): ShippingThread {
  let worker: Worker | null = null;
  let nextRequest = 1;
  const waiting = new Map<number, { resolve: (message: FromShippingThread) => void; reject: (error: Error) => void }>();
  const breakListeners = new Map<string, Set<(reason: string) => void>>();

  const started = (): Worker => {
    if (worker) return worker;
    const thread = new Worker(workerFile, {
      workerData: data,
      // Under the test runner and the benchmarks the worker is TypeScript source, loaded through tsx.
      ...(workerFile.endsWith('.ts') ? { execArgv: ['--import', 'tsx'] } : {}),
      resourceLimits: { maxYoungGenerationSizeMb: 16 },
    });
    // The thread never keeps a process alive: the hosts stop shipping as they close.
    thread.unref();
    thread.on('message', (message: FromShippingThread) => {
      if (message.type === 'break') {
        for (const listener of [...(breakListeners.get(message.sinkId) ?? [])]) listener(message.reason);
        return;
      }
      const request = waiting.get(message.request);
      waiting.delete(message.request);
      request?.resolve(message);
    });
    const died = (error: Error): void => {
      if (worker !== thread) return;
      worker = null;
      for (const request of waiting.values()) request.reject(error);
      waiting.clear();
      // Whatever the thread had written to its connections may not have arrived.
      for (const [, listeners] of breakListeners) for (const listener of [...listeners]) listener(error.message);
    };
    thread.on('error', (error) => died(new Error(`the shipping thread failed: ${error.message}`, { cause: error })));
    thread.on('exit', (code) => died(new Error(`the shipping thread stopped (exit code ${code})`)));
    worker = thread;
    return thread;
  };

  const request = (message: (request: number) => ToShippingThread): Promise<FromShippingThread> =>
    new Promise((resolve, reject) => {
      const id = nextRequest++;
      waiting.set(id, { resolve, reject });
      started().postMessage(message(id));
    });

  return {
    async ship(sink, after) {
      const answer = await request((id) => ({ type: 'ship', request: id, sink, after }));
      if (answer.type === 'failed') throw new Error(answer.message);
      if (answer.type !== 'shipped') throw new Error(`unexpected answer from the shipping thread: ${answer.type}`);
      return { count: answer.count, first: answer.first, last: answer.last };
    },
    onDidBreak(sinkId, listener) {
      const listeners = breakListeners.get(sinkId) ?? new Set();
      breakListeners.set(sinkId, listeners);
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close(sinkId) {
      if (!worker) return;
      await request((id) => ({ type: 'close', request: id, sinkId }));
    },
    async terminate() {
      const thread = worker;
      worker = null;
      if (thread) await thread.terminate();
    },
  };
}
