import { useCallback, useEffect, useMemo, useRef, type RefObject } from 'react';
import type { VirtuosoHandle } from 'react-virtuoso';

/** Keys that move a scrolled list up: pressing one means the person is reading back. */
const UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);

export interface FollowEnd {
  /** Follow the end from now on, and go there: a new exchange, a call that starts waiting, a card to focus. */
  follow: () => void;
  /** For Virtuoso's `totalListHeightChanged`: while following, a row that grew (or was measured late) is followed. */
  onHeightChanged: () => void;
  /**
   * For Virtuoso's `atBottomStateChange`: the person scrolling back down to the end follows again (the chat's end,
   * not the bottom of a window of older rows: list-window.ts).
   */
  onAtBottom: (atBottom: boolean) => void;
  /** For Virtuoso's `scrollerRef`: the scroller whose wheel, touch, keys and scrollbar say the person scrolled up. */
  scrollerRef: (element: HTMLElement | Window | null) => void;
  /** Whether the list follows its end now. */
  isFollowing: () => boolean;
}

/**
 * Keeps the chat's list at its end until the person scrolls up themselves (docs/user/approvals.md,
 * "A new message … brings the chat down"). Virtuoso's `followOutput` follows only while the list is within its threshold of the bottom; a jump to
 * the end taken while a row's height is still estimated can land short of it (on a loaded machine, by more than the
 * threshold), and then nothing brought it down. Here the intent is kept instead of inferred from the position: once
 * asked to follow, every change of the list's height goes to the end again, until a wheel, touch, key or scrollbar
 * drag moves the list up.
 */
export function useFollowEnd(list: RefObject<VirtuosoHandle | null>, holdsEnd: () => boolean = () => true): FollowEnd {
  const following = useRef(true);
  const scroller = useRef<HTMLElement | null>(null);
  const detach = useRef<(() => void) | null>(null);

  const toEnd = useCallback(() => list.current?.scrollToIndex({ index: 'LAST', align: 'end' }), [list]);
  const follow = useCallback(() => {
    following.current = true;
    toEnd();
  }, [toEnd]);
  const onHeightChanged = useCallback(() => {
    if (following.current) toEnd();
  }, [toEnd]);
  const onAtBottom = useCallback(
    (atBottom: boolean) => {
      if (atBottom && holdsEnd()) following.current = true;
    },
    [holdsEnd],
  );

  const scrollerRef = useCallback((element: HTMLElement | Window | null) => {
    detach.current?.();
    detach.current = null;
    scroller.current = element instanceof HTMLElement ? element : null;
    const target = scroller.current;
    if (!target) return;
    const stop = (): void => void (following.current = false);
    const onWheel = (event: WheelEvent): void => {
      if (event.deltaY < 0) stop();
    };
    const onKey = (event: KeyboardEvent): void => {
      if (UP_KEYS.has(event.key) && !isEditable(event.target)) stop();
    };
    // A drag of the scrollbar: a pointer held on the scroller itself (not on a row) while it scrolls.
    let dragging = false;
    const onPointerDown = (event: PointerEvent): void => void (dragging = event.target === target);
    const onPointerUp = (): void => void (dragging = false);
    const onScroll = (): void => {
      if (dragging) stop();
    };
    target.addEventListener('wheel', onWheel, { passive: true });
    target.addEventListener('touchmove', stop, { passive: true });
    target.addEventListener('keydown', onKey);
    target.addEventListener('pointerdown', onPointerDown);
    window.addEventListener('pointerup', onPointerUp);
    target.addEventListener('scroll', onScroll, { passive: true });
    detach.current = () => {
      target.removeEventListener('wheel', onWheel);
      target.removeEventListener('touchmove', stop);
      target.removeEventListener('keydown', onKey);
      target.removeEventListener('pointerdown', onPointerDown);
      window.removeEventListener('pointerup', onPointerUp);
      target.removeEventListener('scroll', onScroll);
    };
  }, []);
  useEffect(() => () => detach.current?.(), []);

  const isFollowing = useCallback(() => following.current, []);
  return useMemo(
    () => ({ follow, onHeightChanged, onAtBottom, scrollerRef, isFollowing }),
    [follow, onHeightChanged, onAtBottom, scrollerRef, isFollowing],
  );
}

/** Arrow keys in a card's argument editor move its caret, not the list. */
function isEditable(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}
