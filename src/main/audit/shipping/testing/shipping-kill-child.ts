/**
 * The child of the SIGKILL test (shipping-kill.test.ts), bundled by it into one file so it starts fast.
 * `record`: records audit rows without end, each commit waking the shipper, which ships them to the syslog
 * port as the app does, until it is killed. `ship`: ships until the sink has acknowledged the whole log, then
 * prints `caught-up <sequence>` and exits. Its shipping thread is shipping-kill-worker.ts, bundled beside it
 * as `worker.mjs`.
 */
import { writeSync } from 'node:fs';
import path from 'node:path';
import type { SyslogSinkConfig } from '../../../../shared/audit-shipping';
import { openDatabase } from '../../../storage/database';
import { createSqliteAuditLog } from '../../sqlite-audit-log';
import { createAuditShipper } from '../audit-shipper';
import { recordRow } from './shipping-fixture';

const [databaseFile, dataDir, port, mode, batchSize] = process.argv.slice(2);
if (!databaseFile || !dataDir || !port || (mode !== 'record' && mode !== 'ship'))
  throw new Error('usage: shipping-kill-child DATABASE_FILE DATA_DIR PORT record|ship [BATCH_SIZE]');

const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

// The shipping thread holds each written batch open only while recording (the kill comes then); a restart ships at full speed.
process.env.SHIPPING_KILL_HOLD_MS = mode === 'record' ? '3000' : '0';
const db = openDatabase(databaseFile);
const log = createSqliteAuditLog({ db, dataDir, commitSync: 'normal' });
const config: SyslogSinkConfig = {
  type: 'syslog',
  id: 'siem',
  enabled: true,
  host: '127.0.0.1',
  port: Number(port),
  facility: 13,
  batchSize: Number(batchSize ?? 200),
};
const shipper = createAuditShipper({
  db,
  targets: () => [{ config, origin: 'settings' }],
  // Tells the test each batch on its way, so it can kill this process in the middle of one.
  workerFile: path.join(import.meta.dirname, 'worker.mjs'),
  pollMs: 50,
  initialBackoffMs: 50,
  maxBackoffMs: 400,
});

if (mode === 'record') {
  let index = 0;
  // A backlog first (as after an outage), so the batches are full and large when the kill comes.
  for (; index < 1500; index++) recordRow(log, index, `k${process.pid}`);
  shipper.start();
  const next = (): void => {
    // Rows keep coming, a burst every 10 ms (as a busy tool loop records); the shipping thread ships meanwhile.
    for (let burst = 0; burst < 20; burst++) recordRow(log, index++, `k${process.pid}`);
    shipper.wake();
    setTimeout(next, 10);
  };
  next();
} else {
  shipper.start();
  const check = (): void => {
    const status = shipper.status().sinks[0];
    if (status && status.lagRows === 0) {
      say(`caught-up ${status.acknowledgedSequence}`);
      void shipper.stop().then(() => {
        db.close();
        process.exit(0);
      });
      return;
    }
    setTimeout(check, 50);
  };
  check();
}
