import { PROXY_DROP_VIEW } from '../../../../shared/mcp-apps';

/**
 * The proxy frames of the views shown in this page (docs/dev/benchmarks.md, "What keeps them fast"). When a view's
 * block leaves the screen (another chat opened), its proxy frame is told to drop the view's frame and is parked,
 * blank, in a hidden holder; when the same call's view is shown again, under the same declared domains, the parked
 * frame is taken back instead of loading the proxy page again. A frame is moved with `moveBefore`, which keeps it
 * loaded; where the browser cannot, nothing is parked. A parked frame is found only by its whole address (the page,
 * the chat, the call and the declared domains), so it only ever serves that call's view, and the view's HTML still
 * goes to it only after the view was read and checked again (AppView.tsx).
 */

/** The most frames kept parked; the oldest is removed first. */
export const PARKED_MAX = 8;

const parked = new Map<string, HTMLIFrameElement>();
let holder: HTMLElement | null = null;

/** `Element.moveBefore` (a state-preserving move), where the browser has it. */
type Movable = Element & { moveBefore?: (node: Node, child: Node | null) => void };
const canMove = (parent: Element): boolean => typeof (parent as Movable).moveBefore === 'function';
const moveInto = (parent: Element, node: Node): void => (parent as Movable).moveBefore?.(node, null);

function parking(): HTMLElement {
  if (holder?.isConnected) return holder;
  holder = document.createElement('div');
  holder.hidden = true;
  holder.setAttribute('aria-hidden', 'true');
  holder.dataset['parkedViewFrames'] = '';
  document.body.appendChild(holder);
  return holder;
}

/**
 * The proxy frame for `address`, put in `slot`: the parked one (already loaded: `ready`), or a new one made by
 * `create` (its proxy page loading).
 */
export function takeFrame(
  address: string,
  slot: HTMLElement,
  create: () => HTMLIFrameElement,
): { frame: HTMLIFrameElement; ready: boolean } {
  const kept = parked.get(address);
  parked.delete(address);
  if (kept && canMove(slot) && kept.isConnected) {
    moveInto(slot, kept);
    return { frame: kept, ready: true };
  }
  kept?.remove();
  const frame = create();
  slot.appendChild(frame);
  return { frame, ready: false };
}

/**
 * Parks a frame whose proxy said it was ready, after telling it to drop the view's frame; any other frame, or one
 * the browser cannot move, is removed.
 */
export function parkFrame(address: string, frame: HTMLIFrameElement, ready: boolean): void {
  const target = frame.contentWindow;
  const place = ready && target && frame.isConnected ? parking() : null;
  if (!place || !target || !canMove(place)) {
    frame.remove();
    return;
  }
  target.postMessage({ jsonrpc: '2.0', method: PROXY_DROP_VIEW, params: {} }, new URL(address).origin);
  moveInto(place, frame);
  parked.get(address)?.remove();
  parked.delete(address);
  parked.set(address, frame);
  for (const [oldest, kept] of parked) {
    if (parked.size <= PARKED_MAX) break;
    kept.remove();
    parked.delete(oldest);
  }
}
