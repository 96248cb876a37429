import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { sha256Hex } from './audit-row';
const db = new BetterSqlite3(':memory:');
parentPort?.postMessage({ got: workerData, h: sha256Hex('x').slice(0, 8), v: db.prepare('select 1').pluck().get() });
