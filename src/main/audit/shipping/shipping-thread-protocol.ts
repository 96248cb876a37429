import type { ShippedSinkConfig } from './audit-sink';

/**
 * The messages between the shipper (main thread, audit-shipper.ts) and its shipping thread (ship-worker.ts).
 * The thread reads, encodes and sends; the main thread keeps the cursors and leases (its connection writes).
 */

/** What the thread is started with (`workerData`). */
export interface ShippingThreadData {
  /** The database to read rows from, on a read-only connection of the thread's own. */
  databaseFile: string;
  /** The app's version, OpenTelemetry's `service.version`. */
  version: string;
  /** Syslog sinks: how long a connection may take, and the HOSTNAME field (the machine's name when absent). */
  connectTimeoutMs?: number;
  hostname?: string;
}

export type ToShippingThread =
  /** Reads up to the sink's batch size of rows after `after` and sends them; answered by `shipped` or `failed`. */
  | { type: 'ship'; request: number; sink: ShippedSinkConfig; after: number }
  /** Closes the sink's connection (after the batch in flight); answered by `closed`. */
  | { type: 'close'; request: number; sinkId: string };

export type FromShippingThread =
  /** `count` rows from `first` to `last` were acknowledged by the sink (count 0: nothing after `after`). */
  | { type: 'shipped'; request: number; count: number; first: number; last: number }
  | { type: 'failed'; request: number; message: string }
  | { type: 'closed'; request: number }
  /** The sink's connection broke: what was written to it shortly before may be lost (audit-sink.ts `onDidBreak`). */
  | { type: 'break'; sinkId: string; reason: string };
