import { Sqlite } from '../../storage/sqlite-driver';
import type { MessagePort } from 'node:worker_threads';
import { AUDIT_COLUMNS_SQL, SEQUENCE_INDEX } from '../audit-row';
import type { AuditSink, RawAuditRow, ShippedSinkConfig } from './audit-sink';
import { lowerThreadPriority } from './background-priority';
import type { FromShippingThread, ShippingThreadData, ToShippingThread } from './shipping-thread-protocol';

/**
 * The body of the shipping thread: answers the shipper's `ship` requests by reading a batch from the audit
 * log on a read-only connection of its own and handing it to the sink. It keeps no state but the open sinks:
 * cursors and leases belong to the main thread, so a thread that dies loses nothing but the batch in flight.
 * `createSink` is a parameter so the SIGKILL test can watch the batches go (testing/shipping-kill-worker.ts).
 */
export function runBatchSender(
  port: MessagePort,
  data: ShippingThreadData,
  createSink: (config: ShippedSinkConfig) => AuditSink,
): void {
  lowerThreadPriority();
  const db = new Sqlite(data.databaseFile, { readonly: true, fileMustExist: true });
  const rowsAfter = db
    .prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log WHERE sequence > ? ORDER BY sequence LIMIT ?`)
    .raw();
  const sinks = new Map<string, AuditSink>();
  const post = (message: FromShippingThread): void => port.postMessage(message);

  const sinkFor = (config: ShippedSinkConfig): AuditSink => {
    let sink = sinks.get(config.id);
    if (!sink) {
      const opened = createSink(config);
      opened.onDidBreak((reason) => post({ type: 'break', sinkId: config.id, reason }));
      sinks.set(config.id, opened);
      sink = opened;
    }
    return sink;
  };

  const ship = async (request: number, config: ShippedSinkConfig, after: number): Promise<void> => {
    try {
      const rows = rowsAfter.all(after, config.batchSize) as RawAuditRow[];
      if (rows.length === 0) return post({ type: 'shipped', request, count: 0, first: after, last: after });
      await sinkFor(config).send(rows);
      post({
        type: 'shipped',
        request,
        count: rows.length,
        first: rows[0]?.[SEQUENCE_INDEX] as number,
        last: rows[rows.length - 1]?.[SEQUENCE_INDEX] as number,
      });
    } catch (error) {
      post({ type: 'failed', request, message: error instanceof Error ? error.message : String(error) });
    }
  };

  const close = async (request: number, sinkId: string): Promise<void> => {
    const sink = sinks.get(sinkId);
    sinks.delete(sinkId);
    try {
      await sink?.close();
    } finally {
      post({ type: 'closed', request });
    }
  };

  port.on('message', (message: ToShippingThread) => {
    if (message.type === 'ship') void ship(message.request, message.sink, message.after);
    else void close(message.request, message.sinkId);
  });
}
