import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lowerThreadPriority } from './background-priority';

/** The nice value of the calling thread: field 19 of /proc/thread-self/stat (after the command in parentheses). */
function threadNice(): number {
  const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[16]);
}

describe('lowerThreadPriority', () => {
  // This file's own thread is lowered: nothing else runs in it after this test.
  it('gives the calling thread nice 19 on Linux, and does nothing elsewhere (it would lower the whole process)', () => {
    if (process.platform !== 'linux') {
      expect(lowerThreadPriority()).toBe(false);
      return;
    }
    const before = threadNice();
    expect(before).toBeLessThan(19);
    expect(lowerThreadPriority()).toBe(true);
    expect(threadNice()).toBe(19);
  });
});
