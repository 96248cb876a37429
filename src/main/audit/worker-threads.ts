import { Worker } from 'node:worker_threads';

/**
 * Starts the audit worker script. Under the test runner and the benchmarks it is TypeScript source,
 * loaded through tsx; in the app it is the built `audit-worker.js`. Each row's strings are garbage at
 * once, so a small young generation keeps every thread's memory small.
 */
export function startAuditWorker(workerFile: string, workerData: unknown): Worker {
  return new Worker(workerFile, {
    workerData,
    ...(workerFile.endsWith('.ts') ? { execArgv: ['--import', 'tsx'] } : {}),
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
}

/** Waits for every run; if one fails, the other workers are stopped and the first failure is raised. */
export async function allOrStop<T>(workers: Worker[], runs: Promise<T>[]): Promise<T[]> {
  try {
    return await Promise.all(runs);
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
}

/** Rejects when the worker fails or exits before `finished()` says its work is complete. */
export function watchWorker(worker: Worker, finished: () => boolean, onDone: () => void, onError: (error: unknown) => void): void {
  worker.on('error', onError);
  worker.on('exit', (code) => {
    if (finished()) onDone();
    else onError(new Error(`An audit worker thread stopped (exit code ${code}) before it finished.`));
  });
}
