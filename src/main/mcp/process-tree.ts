import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Ending a server together with everything it started. On POSIX each server is spawned detached,
 * so it leads its own process group and one signal to the group reaches its children and
 * grandchildren too (a server started through `npx` or a shell is a tree, not one process).
 * On Windows `taskkill /T` walks the tree.
 */
export function signalProcessTree(
  pid: number,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform = process.platform,
): void {
  if (platform === 'win32') {
    spawnSync('taskkill', ['/pid', String(pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])], {
      stdio: 'ignore',
      windowsHide: true,
    });
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch (error) {
    // ESRCH: the group is gone already. EPERM cannot happen for our own children; fall back to the process.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') {
      try {
        process.kill(pid, signal);
      } catch {
        // It exited meanwhile.
      }
    }
  }
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself hold spaces.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
