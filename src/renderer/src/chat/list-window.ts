/**
 * Which of a chat's loaded exchanges the message list holds (docs/dev/chat-list.md): a bounded run of rows, so what
 * the list does per scroll step does not grow with how far up the person has scrolled (docs/dev/benchmarks.md,
 * ui-long-chat). Rows are counted in the list's item indices: the first loaded row has the store's `firstItemIndex`,
 * and an older page put in front lowers it without changing the index of any row already there.
 *
 * Everything here is pure: the list asks for more rows at an edge, and rows beyond `MAX_ROWS` on the far side are
 * dropped (they stay in the store, and come back as the person scrolls to them again).
 */

/** `[start, end)` in item indices. */
export interface ListWindow {
  readonly start: number;
  readonly end: number;
}

/** What the store has loaded: item indices `[first, first + count)`. */
export interface Loaded {
  readonly first: number;
  readonly count: number;
}

/** The most rows the list holds at once. */
export const MAX_ROWS = 120;
/** Rows added at an edge the list reached; the far side drops as many once the window is full. */
export const STEP_ROWS = 40;

const endOf = (loaded: Loaded): number => loaded.first + loaded.count;

/** The newest rows: where a chat opens, and where following the end jumps to. */
export function windowAtEnd(loaded: Loaded): ListWindow {
  const end = endOf(loaded);
  return { start: Math.max(loaded.first, end - MAX_ROWS), end };
}

/** The window holds the newest loaded row: new exchanges join it, and the list may follow its end. */
export function holdsEnd(window: ListWindow, loaded: Loaded): boolean {
  return window.end >= endOf(loaded);
}

/** The window reaches the oldest loaded row: scrolling further up needs an older page from the store. */
export function holdsStart(window: ListWindow, loaded: Loaded): boolean {
  return window.start <= loaded.first;
}

/** The list reached its top: older rows in front (from those loaded), the newest ones dropped beyond `MAX_ROWS`. */
export function extendUp(window: ListWindow, loaded: Loaded): ListWindow {
  const start = Math.max(loaded.first, window.start - STEP_ROWS);
  if (start === window.start) return window;
  return { start, end: Math.min(window.end, start + MAX_ROWS) };
}

/** The list reached its bottom: newer rows after it, the oldest ones dropped beyond `MAX_ROWS`. */
export function extendDown(window: ListWindow, loaded: Loaded): ListWindow {
  const end = Math.min(endOf(loaded), window.end + STEP_ROWS);
  if (end === window.end) return window;
  return { start: Math.max(window.start, end - MAX_ROWS), end };
}

/**
 * The window after the store changed from `before` to `after`: a window that held the end keeps holding it (a new
 * exchange joins it, and the oldest rows drop beyond `MAX_ROWS` while the list follows); otherwise it stays where
 * it is, clamped to what is loaded (a reload may load fewer rows), and falls back to the end when nothing of it is
 * left.
 */
export function reconcile(window: ListWindow, before: Loaded, after: Loaded): ListWindow {
  // An older page arrives because the list reached its top: show it.
  if (after.first < before.first && holdsStart(window, before))
    return extendUp(
      reconcile(window, { first: after.first, count: before.count + before.first - after.first }, after),
      after,
    );
  if (holdsEnd(window, before)) {
    const end = endOf(after);
    const start = Math.min(Math.max(window.start, after.first, end - MAX_ROWS), end);
    return start === window.start && end === window.end ? window : { start, end };
  }
  const start = Math.max(window.start, after.first);
  const end = Math.min(window.end, endOf(after));
  if (end <= start) return windowAtEnd(after);
  return start === window.start && end === window.end ? window : { start, end };
}
