import fs from 'node:fs';
import os from 'node:os';

/** The nice value of the shipping thread: below everything the app does on the decision path. */
const BACKGROUND_NICE = 19;

/**
 * Lowers the calling thread's CPU priority, so the work it does (encoding and sending audit batches) takes only
 * time no other thread of the app wants: on 2 cores, a catch-up of 100,000 rows would otherwise compete with
 * the thread that commits decisions (docs/dev/audit-durability.md, "Shipping off the decision path").
 *
 * Linux only: there a thread has its own nice value, set through its kernel thread id, which
 * `/proc/thread-self` names. Elsewhere the whole process would be lowered, so nothing is done. Returns whether
 * the priority was lowered.
 */
export function lowerThreadPriority(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const link = fs.readlinkSync('/proc/thread-self');
    const tid = Number(link.slice(link.lastIndexOf('/') + 1));
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, BACKGROUND_NICE);
    return true;
  } catch {
    // No /proc (a sandbox) or not permitted: shipping still works, at normal priority.
    return false;
  }
}
