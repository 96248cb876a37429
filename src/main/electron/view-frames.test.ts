/**
 * The Electron window's app frame origin (view-frames.ts), without an Electron binary: which origin its page frames
 * and its policy names, who is told the address over IPC, and that it is the same server as browser mode's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APP_FRAME_PATH } from '../host/app-frame-server';
import { contentSecurityPolicy } from '../host/csp';
import type { Dispatch } from '../host/dispatcher';
import { APP_FRAME_URL_CHANNEL } from '../../shared/ipc';
import {
  pageOriginOf,
  registerAppFrameUrl,
  startWindowViewFrames,
  windowViewFramesOf,
  type WindowViewFrames,
} from './view-frames';
import { APP_ENTRY_URL } from './window-options';

const started: WindowViewFrames[] = [];
afterEach(async () => {
  for (const frames of started.splice(0)) await frames.close();
});

const ok: Dispatch = async () => ({ ok: true, value: {} });

describe("the window's view frames", () => {
  it('frame 127.0.0.1 from the app scheme: that origin alone in the policy, both loopback names refused everything', () => {
    const frames = windowViewFramesOf({ port: 5000, close: async () => {} }, APP_ENTRY_URL);
    expect(frames.url).toBe(`http://127.0.0.1:5000${APP_FRAME_PATH}`);
    expect(frames.frameSources).toEqual(['http://127.0.0.1:5000']);
    expect(frames.viewFrameOrigins).toEqual(['http://127.0.0.1:5000', 'http://localhost:5000']);
    // The window's page policy, as main.ts serves it: that one origin may be framed, nothing else.
    const policy = contentSecurityPolicy([], frames.frameSources);
    expect(policy.split('; ').filter((directive) => directive.startsWith('frame-src'))).toEqual([
      'frame-src http://127.0.0.1:5000',
    ]);
  });

  it('frame another site than a dev server on 127.0.0.1', () => {
    const frames = windowViewFramesOf({ port: 5000, close: async () => {} }, 'http://127.0.0.1:5173/');
    expect(frames.frameSources).toEqual(['http://localhost:5000']);
  });

  it('frame nothing when the frame origin did not start', async () => {
    const frames = windowViewFramesOf(null, APP_ENTRY_URL);
    expect(frames).toMatchObject({ url: null, frameSources: [], viewFrameOrigins: [] });
    await frames.close();
  });

  it("name the page's origin, app scheme included", () => {
    expect(pageOriginOf(APP_ENTRY_URL)).toBe('app://workbench');
    expect(pageOriginOf('http://localhost:5173/index.html')).toBe('http://localhost:5173');
  });

  it("serve the proxy page to the window's page alone, and close", async () => {
    const frames = await startWindowViewFrames({
      pageUrl: APP_ENTRY_URL,
      dispatch: ok,
      frameSlots: () => undefined,
      log: () => {},
    });
    started.push(frames);
    if (frames.url === null) throw new Error('the frame origin did not start');
    const response = await fetch(`${frames.url}?csp=%7B%7D&host=app%3A%2F%2Fworkbench`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/frame-ancestors app:\/\/workbench(;|$)/);
    // Kept by the browser for the page it names, as in browser mode (docs/dev/benchmarks.md).
    expect(response.headers.get('cache-control')).toMatch(/^private, max-age=/);
    expect(await response.text()).toContain('"app://workbench"');
    await frames.close();
    started.pop();
    await expect(fetch(frames.url)).rejects.toThrow();
  });
});

describe("the preload's appFrameUrl()", () => {
  /** An `ipcMain` stand-in holding the one handler. */
  function fakeIpc(): {
    ipc: Parameters<typeof registerAppFrameUrl<{ trusted: boolean }>>[0];
    call(event: { trusted: boolean }): Promise<string | null>;
    channels: Map<string, (event: { trusted: boolean }) => Promise<string | null>>;
  } {
    const channels = new Map<string, (event: { trusted: boolean }) => Promise<string | null>>();
    return {
      ipc: { handle: (channel, listener) => channels.set(channel, listener), removeHandler: (c) => channels.delete(c) },
      call: (event) => {
        const listener = channels.get(APP_FRAME_URL_CHANNEL);
        if (!listener) throw new Error('no handler');
        return listener(event);
      },
      channels,
    };
  }

  it('is answered once the frame origin started, to our own pages only, until removed', async () => {
    const { ipc, call, channels } = fakeIpc();
    let start: (frames: WindowViewFrames) => void = () => {};
    const frames = new Promise<WindowViewFrames>((resolve) => (start = resolve));
    const remove = registerAppFrameUrl(ipc, frames, (event) => event.trusted);
    const early = call({ trusted: true });
    start(windowViewFramesOf({ port: 5000, close: async () => {} }, APP_ENTRY_URL));
    await expect(early).resolves.toBe(`http://127.0.0.1:5000${APP_FRAME_PATH}`);
    await expect(call({ trusted: false })).resolves.toBeNull();
    remove();
    expect(channels.size).toBe(0);
  });

  it('is null when the frame origin did not start', async () => {
    const { ipc, call } = fakeIpc();
    registerAppFrameUrl(ipc, Promise.resolve(windowViewFramesOf(null, APP_ENTRY_URL)), () => true);
    await expect(call({ trusted: true })).resolves.toBeNull();
  });
});

describe('a report from a view in the window', () => {
  it('is recorded through the contract, like browser mode’s', async () => {
    const dispatch = vi.fn<Dispatch>(ok);
    const frames = await startWindowViewFrames({
      pageUrl: APP_ENTRY_URL,
      dispatch,
      frameSlots: () => undefined,
      log: () => {},
    });
    started.push(frames);
    const origin = frames.frameSources[0];
    await fetch(`${origin}/csp-report?chat=c1&view=call_1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/csp-report' },
      body: JSON.stringify({ 'csp-report': { 'effective-directive': 'img-src', 'blocked-uri': 'https://x.example/' } }),
    });
    await vi.waitFor(() =>
      expect(dispatch).toHaveBeenCalledWith('apps.recordRefusal', {
        chatId: 'c1',
        viewCallId: 'call_1',
        what: 'csp',
        detail: 'img-src blocked https://x.example/',
      }),
    );
  });
});
