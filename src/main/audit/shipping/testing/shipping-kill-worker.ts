/**
 * The shipping thread of the SIGKILL test's child (shipping-kill-child.ts): the app's thread (ship-worker.ts),
 * with each syslog batch announced on stdout, so the test can kill the process in the middle of one.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { SEQUENCE_INDEX } from '../../audit-row';
import { runBatchSender } from '../batch-sender';
import type { ShippingThreadData } from '../shipping-thread-protocol';
import { createSyslogSink } from '../syslog-sink';

if (!parentPort) throw new Error('shipping-kill-worker runs only as a worker thread');
const data = workerData as ShippingThreadData;
const holdMs = Number(process.env.SHIPPING_KILL_HOLD_MS ?? '3000');
const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

runBatchSender(parentPort, data, (config) => {
  if (config.type !== 'syslog') throw new Error('the kill test ships to syslog');
  const sink = createSyslogSink({ config, connectTimeoutMs: 2000 });
  return {
    ...sink,
    send: async (rows) => {
      const range = `${String(rows[0]?.[SEQUENCE_INDEX])} ${String(rows[rows.length - 1]?.[SEQUENCE_INDEX])}`;
      say(`sending ${range}`);
      await sink.send(rows);
      // Written and flushed, the cursor not yet moved: the test kills the process in this gap (held open long
      // enough for a busy machine to deliver the kill; a killed process does not wait it out).
      say(`written ${range}`);
      if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
    },
  };
});
