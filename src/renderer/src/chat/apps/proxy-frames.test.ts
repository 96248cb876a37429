/**
 * The proxy frames of views (proxy-frames.ts): parked for the same call's next showing, and a pool of blank frames
 * loaded ahead under the policy of a view that declares no domains, each with its own slot id. On a small stand-in
 * of the DOM: what matters here is which frame goes where, with which address, and what stays loaded.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_FRAME_SLOT_PATTERN } from '../../../../shared/mcp-apps';

const FRAME_URL = 'http://127.0.0.1:5000/app-frame.html';
const PAGE = 'http://127.0.0.1:4790';

/** An element of the stand-in DOM; an iframe gets a window once it is in the page, and loads on insertion only. */
class FakeElement {
  children: FakeElement[] = [];
  parent: FakeElement | null = null;
  hidden = false;
  dataset: Record<string, string> = {};
  className = '';
  referrerPolicy = '';
  src = '';
  title = '';
  loads = 0;
  readonly attributes = new Map<string, string>();
  contentWindow: { postMessage: ReturnType<typeof vi.fn> } | null = null;
  constructor(
    readonly tagName: string,
    private readonly root: () => FakeElement,
  ) {}
  get isConnected(): boolean {
    let top = this.parent;
    while (top?.parent) top = top.parent;
    return (top ?? this) === this.root();
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  private adopt(child: FakeElement): void {
    child.remove();
    child.parent = this;
    this.children.push(child);
  }
  appendChild(child: FakeElement): void {
    this.adopt(child);
    // An ordinary insertion loads a frame anew.
    if (child.tagName === 'iframe' && child.isConnected) {
      child.loads++;
      child.contentWindow = { postMessage: vi.fn() };
    }
  }
  moveBefore(child: FakeElement): void {
    this.adopt(child);
  }
  remove(): void {
    if (!this.parent) return;
    this.parent.children.splice(this.parent.children.indexOf(this), 1);
    this.parent = null;
  }
}

let body: FakeElement;
let listeners: ((event: unknown) => void)[];
let idle: (() => void)[];

beforeEach(() => {
  vi.resetModules();
  const root = (): FakeElement => body;
  body = new FakeElement('body', root);
  listeners = [];
  idle = [];
  vi.stubGlobal('document', { body, createElement: (tag: string) => new FakeElement(tag, root) });
  vi.stubGlobal('window', {
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === 'message') listeners.push(listener);
    },
  });
  vi.stubGlobal('location', { origin: PAGE });
  vi.stubGlobal('requestIdleCallback', (callback: () => void) => idle.push(callback));
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  vi.stubGlobal('fetch', async () => ({ ok: true, json: async () => ({ url: FRAME_URL }) }));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const frames = async () => import('./proxy-frames');
const { NOTHING_DECLARED } = await import('./app-frame');
const DECLARED = JSON.stringify({ connectDomains: ['https://api.example.com'] });

/** The frames in the pool's hidden holder. */
const poolFrames = (): FakeElement[] => body.children.find((child) => 'viewFramePool' in child.dataset)?.children ?? [];
const addressOf = (frame: FakeElement): URLSearchParams => new URL(frame.src).searchParams;
/** The proxy page of `frame` says it is ready, as the proxy does (from its window, on its origin). */
const proxySaysReady = (frame: FakeElement, from: unknown = frame.contentWindow, origin = 'http://127.0.0.1:5000') => {
  for (const listener of listeners)
    listener({ data: { method: 'ui/notifications/sandbox-proxy-ready' }, source: from, origin });
};
const callAddress = (call: string, declared = NOTHING_DECLARED): string =>
  `${FRAME_URL}?${new URLSearchParams({ csp: declared, chat: 'c1', view: call, host: PAGE }).toString()}`;

describe('the pool of proxy frames', () => {
  it('loads blank frames under the policy of no declared domains, each with its own slot and no view', async () => {
    const { fillPool, POOL_SIZE } = await frames();
    await fillPool();
    const pooled = poolFrames();
    expect(pooled).toHaveLength(POOL_SIZE);
    for (const frame of pooled) {
      const address = addressOf(frame);
      expect(frame.src.startsWith(`${FRAME_URL}?`)).toBe(true);
      expect(address.get('csp')).toBe(NOTHING_DECLARED);
      expect(address.get('slot')).toMatch(APP_FRAME_SLOT_PATTERN);
      expect(address.get('host')).toBe(PAGE);
      expect(address.has('chat')).toBe(false);
      expect(address.has('view')).toBe(false);
      expect(frame.attributes.get('sandbox')).toBe('allow-scripts allow-same-origin');
      expect(frame.hidden).toBe(true);
    }
    expect(new Set(pooled.map((frame) => addressOf(frame).get('slot'))).size).toBe(POOL_SIZE);
    // Filled again, nothing more is loaded.
    await fillPool();
    expect(poolFrames()).toHaveLength(POOL_SIZE);
  });

  it('gives a view that declares no domains a pool frame, moved in loaded, with its slot; and fills again at idle', async () => {
    const { fillPool, takeFrame, proxyIsReady, POOL_SIZE, POOL_REFILL_DELAY_MS } = await frames();
    await fillPool();
    const [loading, readyOne] = poolFrames() as [FakeElement, FakeElement];
    proxySaysReady(readyOne);
    const place = new FakeElement('div', () => body);
    body.appendChild(place);
    const taken = takeFrame(callAddress('call_1'), place as unknown as HTMLElement, {
      declared: NOTHING_DECLARED,
      pooled: true,
    });
    // The ready one first, not loaded again.
    expect(taken.frame).toBe(readyOne);
    expect(taken.ready).toBe(true);
    expect(taken.slot).toBe(addressOf(readyOne).get('slot'));
    expect(taken.declared).toBe(NOTHING_DECLARED);
    expect(readyOne.parent).toBe(place);
    expect(readyOne.loads).toBe(1);
    expect(poolFrames()).toEqual([loading]);
    // The next is not ready until its own proxy says so: not a message from another window, nor another origin.
    expect(proxyIsReady(loading as unknown as HTMLIFrameElement)).toBe(false);
    proxySaysReady(loading, { postMessage: vi.fn() });
    proxySaysReady(loading, loading.contentWindow, PAGE);
    expect(proxyIsReady(loading as unknown as HTMLIFrameElement)).toBe(false);
    proxySaysReady(loading);
    expect(proxyIsReady(loading as unknown as HTMLIFrameElement)).toBe(true);
    // Refilled when the page is idle, once the view had time to load.
    vi.advanceTimersByTime(POOL_REFILL_DELAY_MS - 1);
    expect(idle).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(idle).toHaveLength(1);
    for (const callback of idle.splice(0)) callback();
    await vi.waitFor(() => expect(poolFrames()).toHaveLength(POOL_SIZE));
  });

  it('gives a view that declares domains, or one whose slot was refused, a frame of its own address', async () => {
    const { fillPool, takeFrame, POOL_SIZE } = await frames();
    await fillPool();
    const place = new FakeElement('div', () => body);
    body.appendChild(place);
    const declared = takeFrame(callAddress('call_1', DECLARED), place as unknown as HTMLElement, {
      declared: DECLARED,
      pooled: true,
    });
    expect(declared.slot).toBeUndefined();
    expect(declared.declared).toBe(DECLARED);
    expect(declared.frame.src).toBe(callAddress('call_1', DECLARED));
    const refused = takeFrame(callAddress('call_2'), place as unknown as HTMLElement, {
      declared: NOTHING_DECLARED,
      pooled: false,
    });
    expect(refused.slot).toBeUndefined();
    expect(refused.frame.src).toBe(callAddress('call_2'));
    expect(poolFrames()).toHaveLength(POOL_SIZE);
  });

  it("parks a used pool frame for its own call's next showing alone, never back in the pool", async () => {
    const { fillPool, takeFrame, parkFrame, dropFrame } = await frames();
    await fillPool();
    for (const frame of poolFrames()) proxySaysReady(frame);
    const place = new FakeElement('div', () => body);
    body.appendChild(place);
    const asHtml = place as unknown as HTMLElement;
    const options = { declared: NOTHING_DECLARED, pooled: true };
    const taken = takeFrame(callAddress('call_1'), asHtml, options);
    const frame = taken.frame as unknown as FakeElement;
    parkFrame(callAddress('call_1'), taken.frame, true);
    // Told to drop the view's frame, parked blank, not in the pool.
    expect(frame.contentWindow?.postMessage).toHaveBeenCalledWith(
      { jsonrpc: '2.0', method: 'x-workbench/drop-view', params: {} },
      'http://127.0.0.1:5000',
    );
    expect(poolFrames()).not.toContain(frame);
    // Another call gets another frame; the same call gets its parked one back, loaded, with no slot to bind again.
    const other = takeFrame(callAddress('call_2'), asHtml, options);
    expect(other.frame).not.toBe(taken.frame);
    expect(other.slot).not.toBe(taken.slot);
    const again = takeFrame(callAddress('call_1'), asHtml, options);
    expect(again).toEqual({ frame: taken.frame, ready: true, declared: NOTHING_DECLARED });
    expect(frame.loads).toBe(1);
    // Dropped for good: the call's next showing loads anew.
    parkFrame(callAddress('call_1'), taken.frame, true);
    dropFrame(taken.frame);
    expect(frame.isConnected).toBe(false);
    const fresh = takeFrame(callAddress('call_1'), asHtml, { declared: NOTHING_DECLARED, pooled: false });
    expect(fresh.frame).not.toBe(taken.frame);
  });

  it('makes no pool where the browser cannot move a frame loaded, nor where no frame origin serves views', async () => {
    const { fillPool } = await frames();
    const move = FakeElement.prototype.moveBefore;
    try {
      (FakeElement.prototype as { moveBefore?: unknown }).moveBefore = undefined;
      await fillPool();
      expect(poolFrames()).toHaveLength(0);
    } finally {
      FakeElement.prototype.moveBefore = move;
    }
    vi.resetModules();
    vi.stubGlobal('fetch', async () => ({ ok: false }));
    await (await frames()).fillPool();
    expect(poolFrames()).toHaveLength(0);
  });
});
