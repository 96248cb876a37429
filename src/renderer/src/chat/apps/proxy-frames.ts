import { PROXY_DROP_VIEW } from '../../../../shared/mcp-apps';
import { appFrameUrl, NOTHING_DECLARED } from './app-frame';

/**
 * The proxy frames of the views shown in this page (docs/dev/benchmarks.md, "What keeps them fast").
 *
 * Parked: when a view's block leaves the screen (another chat opened), its proxy frame is told to drop the view's
 * frame and is parked, blank, in a hidden holder; when the same call's view is shown again, under the same declared
 * domains, the parked frame is taken back instead of loading the proxy page again. A parked frame is found only by its
 * whole address (the page, the chat, the call and the declared domains), so it only ever serves that call's view.
 *
 * Pooled: a few blank proxy frames are loaded ahead, at idle, under the policy of a view that declares no domains,
 * each with a random slot id in its address instead of a chat and call (docs/user/mcp-apps.md#in-the-audit-log).
 * A view first shown under that policy takes one; the page then binds its slot to the view through the contract, so
 * the frame's reports are recorded for it, and the view's HTML goes to it only once that binding was accepted
 * (AppView.tsx). A frame taken from the pool is never put back: parked, it serves its call's view alone.
 *
 * A frame is moved with `moveBefore`, which keeps it loaded; where the browser cannot, nothing is parked or pooled.
 * The view's HTML goes to any frame only after the view was read and checked again (AppView.tsx).
 */

/** The most frames kept parked; the oldest is removed first. */
export const PARKED_MAX = 8;
/** The blank frames kept loaded ahead for views not shown yet. */
export const POOL_SIZE = 2;

const parked = new Map<string, HTMLIFrameElement>();
const pool: { frame: HTMLIFrameElement; slot: string }[] = [];
let holder: HTMLElement | null = null;
let poolHolder: HTMLElement | null = null;

/** `Element.moveBefore` (a state-preserving move), where the browser has it. */
type Movable = Element & { moveBefore?: (node: Node, child: Node | null) => void };
const canMove = (parent: Element): boolean => typeof (parent as Movable).moveBefore === 'function';
const moveInto = (parent: Element, node: Node): void => (parent as Movable).moveBefore?.(node, null);

function hiddenHolder(name: string): HTMLElement {
  const element = document.createElement('div');
  element.hidden = true;
  element.setAttribute('aria-hidden', 'true');
  element.dataset[name] = '';
  document.body.appendChild(element);
  return element;
}

function parking(): HTMLElement {
  if (!holder?.isConnected) holder = hiddenHolder('parkedViewFrames');
  return holder;
}

/** The frames whose proxy said it is ready (`ui/notifications/sandbox-proxy-ready`), and those not yet. */
const readyFrames = new WeakSet<HTMLIFrameElement>();
const loading = new Set<HTMLIFrameElement>();
let listening = false;

function watchReady(frame: HTMLIFrameElement): void {
  loading.add(frame);
  if (listening) return;
  listening = true;
  // Only the proxy page itself posts from its frame's window, on its own origin; a view's frame is another window.
  window.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { method?: unknown } | null;
    if (data?.method !== 'ui/notifications/sandbox-proxy-ready') return;
    for (const frame of loading) {
      if (!frame.isConnected) loading.delete(frame);
      else if (event.source === frame.contentWindow && event.origin === new URL(frame.src).origin) {
        loading.delete(frame);
        readyFrames.add(frame);
      }
    }
  });
}

/** Whether `frame`'s proxy said it is ready (it may have before its view's bridge listened). */
export const proxyIsReady = (frame: HTMLIFrameElement): boolean => readyFrames.has(frame);

/** A hidden proxy frame loading `address`, sandboxed as every view's is (docs/user/mcp-apps.md#how-a-view-is-shown). */
function proxyFrame(address: string): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.className = 'app-view-frame';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  frame.setAttribute('allow', '');
  frame.referrerPolicy = 'no-referrer';
  frame.hidden = true;
  frame.src = address;
  watchReady(frame);
  return frame;
}

/** 16 random bytes, base64url: a slot id nobody can guess (`APP_FRAME_SLOT_PATTERN`). */
function newSlot(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Loads blank frames into the pool up to `POOL_SIZE`, under the policy of a view that declares no domains. */
export async function fillPool(): Promise<void> {
  const url = await appFrameUrl();
  if (url === null || !canMove(document.body)) return;
  if (!poolHolder?.isConnected) poolHolder = hiddenHolder('viewFramePool');
  for (let index = pool.length - 1; index >= 0; index--) if (!pool[index]?.frame.isConnected) pool.splice(index, 1);
  while (pool.length < POOL_SIZE) {
    const slot = newSlot();
    const frame = proxyFrame(
      `${url}?${new URLSearchParams({ csp: NOTHING_DECLARED, slot, host: location.origin }).toString()}`,
    );
    poolHolder.appendChild(frame);
    pool.push({ frame, slot });
  }
}

/** How long after a view took its frame the pool is filled again: not while that view still loads. */
export const POOL_REFILL_DELAY_MS = 3000;

/** Fills the pool when the page is idle, `delayMs` from now at the earliest. */
export function fillPoolWhenIdle(delayMs = 0): void {
  setTimeout(() => requestIdleCallback(() => void fillPool(), { timeout: 2000 }), delayMs);
}

/** A pool frame for `place`, a ready one first, or null. */
function fromPool(place: HTMLElement): { frame: HTMLIFrameElement; slot: string } | null {
  const index = pool.findIndex((entry) => entry.frame.isConnected && readyFrames.has(entry.frame));
  const [entry] = pool.splice(index >= 0 ? index : 0, 1);
  if (!entry?.frame.isConnected || !canMove(place)) {
    entry?.frame.remove();
    return null;
  }
  moveInto(place, entry.frame);
  fillPoolWhenIdle(POOL_REFILL_DELAY_MS);
  return entry;
}

/**
 * The proxy frame for `address` (whose policy carries `declared`), put in `place`: the parked one (already loaded:
 * `ready`); else, for a view under the pool's policy (`NOTHING_DECLARED`, and `pooled`), a pool frame with its slot,
 * to be bound before the view's HTML goes to it; else a new one (its proxy page loading). `declared` is what the
 * frame's own address carries: the view's HTML goes only to a frame whose policy is the view's (AppView.tsx).
 */
export function takeFrame(
  address: string,
  place: HTMLElement,
  options: { declared: string; pooled: boolean },
): { frame: HTMLIFrameElement; ready: boolean; declared: string; slot?: string } {
  const { declared } = options;
  const kept = parked.get(address);
  parked.delete(address);
  if (kept && canMove(place) && kept.isConnected) {
    moveInto(place, kept);
    return { frame: kept, ready: true, declared };
  }
  kept?.remove();
  const pooled = options.pooled && declared === NOTHING_DECLARED ? fromPool(place) : null;
  if (pooled)
    return {
      frame: pooled.frame,
      ready: readyFrames.has(pooled.frame),
      declared: NOTHING_DECLARED,
      slot: pooled.slot,
    };
  const frame = proxyFrame(address);
  place.appendChild(frame);
  return { frame, ready: false, declared };
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

/** Removes a frame for good, parked or not (a pool frame whose slot the main process would not bind). */
export function dropFrame(frame: HTMLIFrameElement): void {
  for (const [address, kept] of parked) if (kept === frame) parked.delete(address);
  loading.delete(frame);
  frame.remove();
}
