/**
 * The app frame origin as both hosts start it (app-frame-origin.ts): its reports become `apps.recordRefusal` calls of
 * the contract, a pool frame's for the view its slot was bound to; a start that fails is said and gives null.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APP_FRAME_PATH, APP_FRAME_REPORT_PATH, type AppFrameServer } from './app-frame-server';
import { appFrameUrlFor, frameOriginFor, frameOriginsOf, startAppFrameOrigin } from './app-frame-origin';
import type { Dispatch } from './dispatcher';

const servers: AppFrameServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const blocked = { 'csp-report': { 'effective-directive': 'connect-src', 'blocked-uri': 'http://127.0.0.1:9/steal' } };
const report = (server: AppFrameServer, query: string): Promise<Response> =>
  fetch(`${server.origin}${APP_FRAME_REPORT_PATH}?${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/csp-report' },
    body: JSON.stringify(blocked),
  });

describe('the app frame origin as a host starts it', () => {
  it("records a view's blocked request, and a pool frame's for the view its slot was bound to, through the contract", async () => {
    const dispatch = vi.fn<Dispatch>(async () => ({ ok: true, value: {} }));
    const bound = new Map([['AAAAAAAAAAAAAAAAAAAAAA', { chatId: 'c1', viewCallId: 'call_2' }]]);
    const server = await startAppFrameOrigin({
      hostOrigins: () => ['app://workbench'],
      dispatch,
      frameSlots: () => ({ viewOf: (slot) => bound.get(slot) }),
      log: () => {},
    });
    expect(server).not.toBeNull();
    if (!server) return;
    servers.push(server);
    const page = await fetch(`${server.origin}${APP_FRAME_PATH}?csp=%7B%7D&chat=c1&view=call_1`);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors app://workbench');
    await report(server, 'chat=c1&view=call_1');
    await report(server, 'slot=AAAAAAAAAAAAAAAAAAAAAA');
    await report(server, 'slot=BBBBBBBBBBBBBBBBBBBBBB');
    await vi.waitFor(() => expect(dispatch).toHaveBeenCalledTimes(2));
    const detail = 'connect-src blocked http://127.0.0.1:9/steal';
    expect(dispatch.mock.calls).toEqual([
      ['apps.recordRefusal', { chatId: 'c1', viewCallId: 'call_1', what: 'csp', detail }],
      ['apps.recordRefusal', { chatId: 'c1', viewCallId: 'call_2', what: 'csp', detail }],
    ]);
  });

  it('drops a pool frame’s report while no slot can have been bound (the services still start)', async () => {
    const dispatch = vi.fn<Dispatch>(async () => ({ ok: true, value: {} }));
    const server = await startAppFrameOrigin({
      hostOrigins: () => ['app://workbench'],
      dispatch,
      frameSlots: () => undefined,
      log: () => {},
    });
    if (!server) throw new Error('the frame origin did not start');
    servers.push(server);
    expect((await report(server, 'slot=AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(204);
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('says why views cannot be shown when it cannot listen, and gives null', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const lines: string[] = [];
    const server = await startAppFrameOrigin({
      hostOrigins: () => ['app://workbench'],
      dispatch: async () => ({ ok: true, value: {} }),
      frameSlots: () => undefined,
      log: (line) => lines.push(line),
      port,
    });
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    expect(server).toBeNull();
    expect(lines).toEqual([expect.stringMatching(/^MCP Apps views cannot be shown: their frame origin did not start/)]);
  });
});

describe('which loopback name a page frames', () => {
  it.each([
    ['127.0.0.1', 'http://localhost:5000'],
    ['localhost', 'http://127.0.0.1:5000'],
    // The Electron window's page, on the app scheme: either name is another site; 127.0.0.1 is taken.
    ['workbench', 'http://127.0.0.1:5000'],
  ])('a page on %s frames %s', (pageHostname, origin) => {
    expect(frameOriginFor(pageHostname, 5000)).toBe(origin);
    expect(appFrameUrlFor(pageHostname, 5000)).toBe(`${origin}${APP_FRAME_PATH}`);
    expect(frameOriginsOf(5000)).toContain(origin);
  });
});
