/**
 * The child of the SIGKILL test (shipping-kill.test.ts), bundled by it into one file so it starts fast.
 * `record`: records audit rows without end, each commit waking the shipper, which ships them to the syslog
 * port as the app does, until it is killed. `ship`: ships until the sink has acknowledged the whole log, then
 * prints `caught-up <sequence>` and exits.
 */
import { writeSync } from 'node:fs';
import type { SyslogSinkConfig } from '../../../../shared/audit-shipping';
import { openDatabase } from '../../../storage/database';
import { SEQUENCE_INDEX } from '../../audit-row';
import { createSqliteAuditLog } from '../../sqlite-audit-log';
import { createAuditShipper } from '../audit-shipper';
import { createSyslogSink } from '../syslog-sink';
import { recordRow } from './shipping-fixture';

const [databaseFile, dataDir, port, mode, batchSize] = process.argv.slice(2);
if (!databaseFile || !dataDir || !port || (mode !== 'record' && mode !== 'ship')) throw new Error('usage: shipping-kill-child DATABASE_FILE DATA_DIR PORT record|ship [BATCH_SIZE]');

const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

const db = openDatabase(databaseFile);
const log = createSqliteAuditLog({ db, dataDir, commitSync: 'normal' });
const config: SyslogSinkConfig = { type: 'syslog', id: 'siem', enabled: true, host: '127.0.0.1', port: Number(port), facility: 13, batchSize: Number(batchSize ?? 200) };
const shipper = createAuditShipper({
  db,
  targets: () => [{ config, origin: 'settings' }],
  createSink: () => {
    const sink = createSyslogSink({ config, connectTimeoutMs: 2000 });
    // Tells the test a batch is on its way, so it can kill this process in the middle of it.
    return {
      ...sink,
      send: async (rows) => {
        const range = `${String(rows[0]?.[SEQUENCE_INDEX])} ${String(rows[rows.length - 1]?.[SEQUENCE_INDEX])}`;
        say(`sending ${range}`);
        await sink.send(rows);
        // Written and flushed, the cursor not yet moved: the test kills the process in this gap (held open long
        // enough for a busy machine to deliver the kill; a killed process does not wait it out).
        say(`written ${range}`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
      },
    };
  },
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
    // Rows keep coming, a burst at a time; the event loop turns between bursts so the shipper's batches interleave.
    for (let burst = 0; burst < 20; burst++) recordRow(log, index++, `k${process.pid}`);
    shipper.wake();
    setImmediate(next);
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
