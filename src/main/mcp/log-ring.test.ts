import { describe, expect, it } from 'vitest';
import { createLineSplitter, createLogRing, LOG_LINE_MAX_LENGTH } from './log-ring';

describe('the log ring buffer', () => {
  it('keeps the last lines, oldest first, and counts what fell out', () => {
    const ring = createLogRing(3, () => 7);
    for (const text of ['a', 'b', 'c', 'd', 'e']) ring.push('stderr', text);
    expect(ring.lines()).toEqual(['c', 'd', 'e'].map((text) => ({ time: 7, source: 'stderr', text })));
    expect(ring.lines(2).map((line) => line.text)).toEqual(['d', 'e']);
    expect(ring.dropped).toBe(2);
  });

  it('holds 1,000 lines by default', () => {
    const ring = createLogRing();
    for (let index = 0; index < 1500; index++) ring.push('stderr', String(index));
    const lines = ring.lines();
    expect(lines).toHaveLength(1000);
    expect(lines[0]?.text).toBe('500');
    expect(ring.dropped).toBe(500);
  });

  it('cuts very long lines and redacts secrets', () => {
    const ring = createLogRing();
    ring.redact(['hunter22', 'ab']);
    ring.push('stderr', `token=hunter22 ab ${'x'.repeat(LOG_LINE_MAX_LENGTH)}`);
    const [line] = ring.lines();
    expect(line?.text.startsWith('token=••• ab ')).toBe(true);
    expect(line?.text).toMatch(/… \(\d+ more characters\)$/);
  });
});

describe('the line splitter', () => {
  it('splits on LF and CRLF across chunks, keeps UTF-8 whole, and cuts endless lines', () => {
    const lines: string[] = [];
    const splitter = createLineSplitter((line) => lines.push(line), 5);
    const bytes = Buffer.from('héllo\r\nwo');
    splitter.write(bytes.subarray(0, 2));
    splitter.write(bytes.subarray(2));
    splitter.write('rld\nabcdefghijkl');
    splitter.end();
    expect(lines).toEqual(['héllo', 'world', 'abcde', 'fghij', 'kl']);
  });
});
