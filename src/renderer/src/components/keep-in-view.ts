import { useLayoutEffect, type RefObject } from 'react';

/** The part of the window a popup can be seen in: the nearest ancestors that clip it, within the viewport. */
function visibleBounds(element: HTMLElement): { top: number; bottom: number } {
  let top = 0;
  let bottom = window.innerHeight;
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    if (getComputedStyle(parent).overflowY === 'visible') continue;
    const rect = parent.getBoundingClientRect();
    top = Math.max(top, rect.top);
    bottom = Math.min(bottom, rect.bottom);
  }
  return { top, bottom };
}

/**
 * A menu or popover that opens below its button flips above it (`data-placement="above"`, for the CSS) when the space
 * below — inside the scrolling pane, whose end the approval bar and the message box sit under — is too small, and is
 * then scrolled fully into view. `deps` measure it again when its content changes size (a loading line replaced by
 * the items). Set on the element itself, before paint, so the menu never shows in the wrong place first.
 */
export function useKeepInView(
  popup: RefObject<HTMLElement | null>,
  anchor: RefObject<HTMLElement | null>,
  open: boolean,
  deps: readonly unknown[],
): void {
  useLayoutEffect(() => {
    const menu = popup.current;
    const button = anchor.current;
    if (!open || !menu || !button) return;
    const bounds = visibleBounds(button);
    const from = button.getBoundingClientRect();
    const height = menu.getBoundingClientRect().height + 4;
    const below = bounds.bottom - from.bottom;
    const above = from.top - bounds.top;
    menu.setAttribute('data-placement', below >= height || below >= above ? 'below' : 'above');
    // Where neither side has room, the pane scrolls the menu into view rather than leaving it cut off.
    const frame = requestAnimationFrame(() => menu.scrollIntoView({ block: 'nearest' }));
    return () => cancelAnimationFrame(frame);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- measured per opening and per content change
  }, [open, ...deps]);
}
