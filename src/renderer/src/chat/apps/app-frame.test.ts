/**
 * Where views run (app-frame.ts): each host's one source of the app frame origin's address, asked once per page and
 * checked to be a loopback address; null when the host has none.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as AppFrame from './app-frame';

const FRAME_URL = 'http://127.0.0.1:5000/app-frame.html';

/** A fresh copy of the module (its answer is kept per page), in a page with `host` as the preload's `workbenchHost`. */
async function load(host?: { appFrameUrl(): Promise<unknown> }): Promise<typeof AppFrame> {
  vi.resetModules();
  vi.stubGlobal('window', host ? { workbenchHost: host } : {});
  return import('./app-frame');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the app frame URL in the Electron window', () => {
  it("comes from the preload, once, and the browser mode's address is never fetched", async () => {
    const fetched = vi.fn();
    vi.stubGlobal('fetch', fetched);
    const appFrameUrl = vi.fn(async () => FRAME_URL);
    const frame = await load({ appFrameUrl });
    expect(frame.appFrameUrlNow()).toBeUndefined();
    await expect(frame.appFrameUrl()).resolves.toBe(FRAME_URL);
    await expect(frame.appFrameUrl()).resolves.toBe(FRAME_URL);
    expect(frame.appFrameUrlNow()).toBe(FRAME_URL);
    expect(appFrameUrl).toHaveBeenCalledTimes(1);
    expect(fetched).not.toHaveBeenCalled();
  });

  it.each([
    ['the frame origin did not start', async () => null],
    ['an address off loopback', async () => 'https://evil.example/app-frame.html'],
    ['not an address', async () => 42],
    ['a failed call', async () => Promise.reject(new Error('no handler'))],
    [
      'a call that throws at once',
      () => {
        throw new Error('gone');
      },
    ],
  ])('is null for %s', async (_case, appFrameUrl) => {
    const frame = await load({ appFrameUrl: appFrameUrl as () => Promise<unknown> });
    await expect(frame.appFrameUrl()).resolves.toBeNull();
    expect(frame.appFrameUrlNow()).toBeNull();
  });
});

describe('the app frame URL in browser mode', () => {
  it("comes from the page's server at /app-frame.json", async () => {
    const fetched = vi.fn(async () => new Response(JSON.stringify({ url: 'http://localhost:5000/app-frame.html' })));
    vi.stubGlobal('fetch', fetched);
    const frame = await load();
    await expect(frame.appFrameUrl()).resolves.toBe('http://localhost:5000/app-frame.html');
    expect(fetched).toHaveBeenCalledWith('/app-frame.json', { cache: 'no-store' });
  });

  it('is null when the server has no frame origin', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('Not found', { status: 404 })),
    );
    const frame = await load();
    await expect(frame.appFrameUrl()).resolves.toBeNull();
  });
});
