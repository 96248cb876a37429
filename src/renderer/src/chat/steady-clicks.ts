import { useCallback, useEffect, useState } from 'react';
import { announce } from '../state/announcer';

/**
 * A click decides only what the person aimed at (docs/user/approvals.md, "A card that moves as you click").
 *
 * Cards arrive, grow and fold while a person reads them: a second call's card comes in, a decided card folds to one
 * line, the list follows new content, Undo gives way to the buttons. A pointer that stays still can so end up over
 * another control — another card's Allow — between the moment the person aimed and the moment they clicked. A
 * decision surface (an approval card, a server request's card, the bar's Allow all) therefore lets a mouse click
 * through only when it lands on
 *   - the control the pointer last MOVED over (the person aimed at it), or
 *   - a control that has been under the pointer for STEADY_MS already (they had time to see it; Chromium's
 *     permission prompts use the same half second, the double-click time).
 * Otherwise the click is dropped, the surface says so, and nothing is decided; a second click half a second later,
 * or any move of the pointer first, goes through.
 *
 * This rests on what Chromium sends: no `pointermove` when content moves under a still pointer, only `pointerover`
 * (after a scroll, or at the next press) for what is now under it. What the person's own scroll (the wheel, the scroll
 * keys) brings under the pointer counts as aimed at: they watched it come. Keyboard activations (`detail` 0) act on the
 * focused control, which no layout change moves, and are never dropped. A touch or a pen has no hover to go by:
 * their taps are not checked.
 */
export const STEADY_MS = 500;

/** How long the "moved as you clicked" notice stays. */
const NOTICE_MS = 6000;

/** How long after the person's own scroll what it brings under the pointer counts as seen (smooth scrolling ends later). */
const OWN_SCROLL_MS = 1000;

const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End', 'ArrowUp', 'ArrowDown', ' ']);

/** What a click acts on: the unit "aimed at" and "under the pointer" are judged by. */
const CONTROL =
  'button, a[href], input, select, textarea, summary, label, [role="button"], [role="menuitem"], [role="tab"], [role="checkbox"], [role="radio"]';

const controlOf = (target: EventTarget | null): Element | null =>
  target instanceof Element ? target.closest(CONTROL) : null;

/** The control the pointer last moved over (null: none, such as text). */
let aimed: Element | null = null;
/** The control under the pointer, and since when (`performance.now()`). */
let hovered: Element | null = null;
let hoveredSince = -Infinity;
let pointerType = 'mouse';
/** When the person last scrolled (wheel, scroll keys). */
let ownScrollAt = -Infinity;
let users = 0;

const onPointerOver = (event: PointerEvent): void => {
  const control = controlOf(event.target);
  if (control === hovered) return;
  hovered = control;
  hoveredSince = performance.now();
  // Brought under the pointer by the person's own scroll: they watched it come.
  if (hoveredSince - ownScrollAt < OWN_SCROLL_MS) aimed = control;
};
const onPointerMove = (event: PointerEvent): void => {
  aimed = controlOf(event.target);
  pointerType = event.pointerType;
};
const onPointerDown = (event: PointerEvent): void => {
  pointerType = event.pointerType;
};
const onOwnScroll = (): void => {
  ownScrollAt = performance.now();
};
const onKeyDown = (event: KeyboardEvent): void => {
  if (!SCROLL_KEYS.has(event.key)) return;
  // Keys typed into a field do not scroll; Space on a button presses it (a decision may fold a card: that is a move
  // the person did not scroll).
  if (event.target instanceof Element && event.target.closest('input, textarea, select, [contenteditable="true"]'))
    return;
  if (event.key === ' ' && controlOf(event.target)) return;
  onOwnScroll();
};

const LISTENERS = [
  ['pointerover', onPointerOver],
  ['pointermove', onPointerMove],
  ['pointerdown', onPointerDown],
  ['wheel', onOwnScroll],
  ['keydown', onKeyDown],
] as const;

function listen(): () => void {
  if (users++ === 0)
    for (const [type, listener] of LISTENERS)
      document.addEventListener(type, listener as EventListener, { capture: true, passive: true });
  return () => {
    if (--users === 0)
      for (const [type, listener] of LISTENERS)
        document.removeEventListener(type, listener as EventListener, { capture: true });
  };
}

/** Whether a click on `control` goes through: see the module comment. */
function isAimed(control: Element, detail: number, now: number): boolean {
  if (detail === 0 || pointerType !== 'mouse') return true;
  if (control === aimed) return true;
  return control === hovered && now - hoveredSince >= STEADY_MS;
}

export interface SteadyClicks {
  /** For the surface's root element: drops a click that was not aimed at the control it landed on. */
  onClickCapture(event: React.MouseEvent): void;
  /** True for a few seconds after a dropped click: the surface shows DROPPED_CLICK_WORDS (a screen reader hears them). */
  dropped: boolean;
}

export function useSteadyClicks(): SteadyClicks {
  const [dropped, setDropped] = useState(false);
  useEffect(listen, []);
  useEffect(() => {
    if (!dropped) return;
    const timer = setTimeout(() => setDropped(false), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [dropped]);
  const onClickCapture = useCallback((event: React.MouseEvent): void => {
    // A click on text acts on nothing. A dialog the surface opened (a portal: React passes its clicks through here
    // too) is judged the same way, which is right for it as well.
    const control = controlOf(event.target);
    if (!control || isAimed(control, event.detail, performance.now())) return;
    event.preventDefault();
    event.stopPropagation();
    setDropped(true);
    announce(DROPPED_CLICK_WORDS);
  }, []);
  return { onClickCapture, dropped };
}

export const DROPPED_CLICK_WORDS =
  'This moved just as you clicked, so nothing was chosen. Click again if you meant it.';
