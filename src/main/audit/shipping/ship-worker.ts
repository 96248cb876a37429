/**
 * Worker-thread entry of audit shipping (built as its own file, see electron.vite.config.ts and
 * src/main/assets.ts): reads, encodes and sends the batches, so none of that work runs on the thread that
 * commits decisions (docs/user/audit-shipping.md#delivery).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runBatchSender } from './batch-sender';
import { createAuditSink } from './create-sink';
import type { ShippingThreadData } from './shipping-thread-protocol';

if (!parentPort) throw new Error('ship-worker runs only as a worker thread');
const data = workerData as ShippingThreadData;
runBatchSender(parentPort, data, (config) => createAuditSink(config, data));
