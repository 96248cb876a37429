/**
 * Worker-thread entry for `audit verify`: checks one slice of the chain (range-check.ts) and reports
 * progress and its summary to the thread that started it. Built as its own file (electron.vite.config.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkRange, type RangeRequest } from './range-check';

if (!parentPort) throw new Error('audit-verify-worker runs only as a worker thread');
const port = parentPort;
const summary = checkRange(workerData as RangeRequest, (rows) => port.postMessage({ type: 'progress', rows }));
port.postMessage({ type: 'done', summary });
