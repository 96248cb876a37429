import { describe, expect, it } from 'vitest';
import {
  extendDown,
  extendUp,
  holdsEnd,
  holdsStart,
  MAX_ROWS,
  reconcile,
  STEP_ROWS,
  windowAtEnd,
  type ListWindow,
  type Loaded,
} from './list-window';

const FIRST = 1_000_000;
const size = (window: ListWindow): number => window.end - window.start;

describe('the message list window', () => {
  it('opens at the newest rows, all of them when few are loaded', () => {
    expect(windowAtEnd({ first: FIRST, count: 30 })).toEqual({ start: FIRST, end: FIRST + 30 });
    const many = windowAtEnd({ first: FIRST - 4_950, count: 5_000 });
    expect(many).toEqual({ start: FIRST + 50 - MAX_ROWS, end: FIRST + 50 });
    expect(windowAtEnd({ first: FIRST, count: 0 })).toEqual({ start: FIRST, end: FIRST });
  });

  it('scrolling up through every loaded row never holds more than MAX_ROWS, and drops the newest first', () => {
    const loaded: Loaded = { first: FIRST - 5_000, count: 5_050 };
    let window = windowAtEnd(loaded);
    let steps = 0;
    while (!holdsStart(window, loaded)) {
      const next = extendUp(window, loaded);
      expect(next.start).toBe(Math.max(loaded.first, window.start - STEP_ROWS));
      expect(size(next)).toBeLessThanOrEqual(MAX_ROWS);
      // Contiguous: what stays is the rows nearest the ones the person is reading.
      expect(next.end).toBeLessThanOrEqual(window.end);
      expect(next.end).toBeGreaterThan(window.start);
      window = next;
      steps++;
    }
    expect(window).toEqual({ start: loaded.first, end: loaded.first + MAX_ROWS });
    expect(holdsEnd(window, loaded)).toBe(false);
    expect(steps).toBe(Math.ceil((5_050 - MAX_ROWS) / STEP_ROWS));
    // At the oldest loaded row there is nothing more to show from memory: the store loads the page before.
    expect(extendUp(window, loaded)).toBe(window);
  });

  it('scrolling back down brings the dropped rows back and drops the oldest, until it holds the end again', () => {
    const loaded: Loaded = { first: FIRST - 1_000, count: 1_050 };
    let window: ListWindow = { start: loaded.first, end: loaded.first + MAX_ROWS };
    while (!holdsEnd(window, loaded)) {
      const next = extendDown(window, loaded);
      expect(next.end).toBe(Math.min(loaded.first + loaded.count, window.end + STEP_ROWS));
      expect(size(next)).toBeLessThanOrEqual(MAX_ROWS);
      expect(next.start).toBeGreaterThanOrEqual(window.start);
      window = next;
    }
    expect(window).toEqual(windowAtEnd(loaded));
    expect(extendDown(window, loaded)).toBe(window);
  });

  it('an older page put in front of a window at the oldest loaded row is shown; elsewhere it changes nothing', () => {
    const before: Loaded = { first: FIRST - 100, count: 150 };
    const after: Loaded = { first: FIRST - 150, count: 200 };
    const atTop: ListWindow = { start: before.first, end: before.first + MAX_ROWS };
    const shown = reconcile(atTop, before, after);
    expect(shown.start).toBe(after.first + (50 - STEP_ROWS));
    expect(size(shown)).toBeLessThanOrEqual(MAX_ROWS);
    // A window holding the end keeps it and takes the page too while it has room.
    const small: Loaded = { first: FIRST, count: 30 };
    expect(reconcile(windowAtEnd(small), small, { first: FIRST - 50, count: 80 })).toEqual({
      start: FIRST - STEP_ROWS,
      end: FIRST + 30,
    });
    const middle: ListWindow = { start: before.first + 10, end: before.first + 100 };
    expect(reconcile(middle, before, after)).toBe(middle);
  });

  it('a window holding the end takes each new exchange, dropping the oldest beyond MAX_ROWS', () => {
    let loaded: Loaded = { first: FIRST - 500, count: 550 };
    let window = windowAtEnd(loaded);
    for (let added = 0; added < 5; added++) {
      const next: Loaded = { first: loaded.first, count: loaded.count + 1 };
      window = reconcile(window, loaded, next);
      loaded = next;
      expect(holdsEnd(window, loaded)).toBe(true);
      expect(size(window)).toBe(MAX_ROWS);
    }
  });

  it('a window away from the end stays put when an exchange is added, so the rows read do not move', () => {
    const loaded: Loaded = { first: FIRST - 500, count: 550 };
    const window: ListWindow = { start: FIRST - 400, end: FIRST - 400 + MAX_ROWS };
    const next = reconcile(window, loaded, { first: loaded.first, count: loaded.count + 1 });
    expect(next).toBe(window);
  });

  it('a reload that loads only the newest page keeps what is left of the window, or goes to the end', () => {
    const before: Loaded = { first: FIRST - 500, count: 550 };
    const reloaded: Loaded = { first: FIRST, count: 50 };
    const far: ListWindow = { start: FIRST - 400, end: FIRST - 400 + MAX_ROWS };
    expect(reconcile(far, before, reloaded)).toEqual(windowAtEnd(reloaded));
    const near: ListWindow = { start: FIRST - 60, end: FIRST + 20 };
    expect(reconcile(near, before, reloaded)).toEqual({ start: FIRST, end: FIRST + 20 });
    expect(reconcile(windowAtEnd(before), before, reloaded)).toEqual(windowAtEnd(reloaded));
  });
});
