import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDuration, lineDiff, prettyText } from './format';

describe('format', () => {
  it('durations', () => {
    expect(formatDuration(0.4)).toBe('1 ms');
    expect(formatDuration(340)).toBe('340 ms');
    expect(formatDuration(1530)).toBe('1.5 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(undefined)).toBe('');
  });
  it('countdowns', () => {
    expect(formatCountdown(299_001)).toBe('5:00');
    expect(formatCountdown(61_000)).toBe('1:01');
    expect(formatCountdown(-5)).toBe('0:00');
    expect(formatCountdown(3_600_000)).toBe('1:00:00');
  });
  it('pretty-prints JSON text and leaves other text alone', () => {
    expect(prettyText('{"a":1}')).toEqual({ text: '{\n  "a": 1\n}', json: true });
    expect(prettyText('{not json}')).toEqual({ text: '{not json}', json: false });
  });
  it('diffs lines', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
    ]);
  });
});
