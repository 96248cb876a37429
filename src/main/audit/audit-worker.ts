/**
 * Worker-thread entry for `audit verify` (built as its own file, see electron.vite.config.ts): checks
 * one slice of the chain (range-check.ts) and reports progress and its summary to the thread that started it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkRange, type RangeRequest } from './range-check';

export type AuditWorkerRequest = { task: 'verify' } & RangeRequest;

if (!parentPort) throw new Error('audit-worker runs only as a worker thread');
const port = parentPort;
const summary = checkRange(workerData as AuditWorkerRequest, (rows) => port.postMessage({ type: 'progress', rows }));
port.postMessage({ type: 'done', summary });
