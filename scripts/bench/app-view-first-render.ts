/**
 * `app-view-first-render`: an MCP Apps view (the published example @modelcontextprotocol/server-basic-vanillajs, run
 * for real by browser mode) in Chromium, from its tool call's block appearing in the chat to the view's first content
 * on screen (its "Get Server Time" button visible) — through the lazy view chunk, `mcp.appView` (the server read, the
 * pin check), the frame origin's proxy and the ext-apps host bridge — against a floor in the same Chromium: the same
 * HTML in a plain sandboxed frame (`sandbox="allow-scripts"`, `srcdoc`) on a bare page, from the frame's insertion
 * to the same button visible. Both ends are read the same way (the start in the page, the end by Playwright), rounds
 * interleaved; a ratio of medians. Each round shows the view of a call the page has not shown before (the first
 * showing, `app-view-first-render`), then the same one again after another chat (`app-view-shown-again`: its proxy
 * frame was kept). Goal ≤ 1.5× (docs/dev/benchmarks.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import type { ToolCallRecord } from '../../src/shared/messages.ts';
import type { NewMessage } from '../../src/main/chat/message-store.ts';
import { createMessageStore } from '../../src/main/chat/message-store.ts';
import { openDatabase } from '../../src/main/storage/database.ts';
import { APP_FRAME_PATH, startAppFrameServer } from '../../src/main/host/app-frame-server.ts';
import type { McpAppView } from '../../src/shared/mcp-apps.ts';
import { ROOT } from '../lib/project.ts';
import type { Benchmark, NamedBenchMeasurement } from './harness.ts';
import { loadAverage, openUi, seededHome } from './ui-support.ts';

const ROUNDS = Number(process.env['APP_VIEW_ROUNDS'] ?? 7);
const BASIC = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const OTHER_CHAT = 'Other chat';
/** Round `round`'s chat and its call: each round shows a view its page has not shown before (round -1 warms up). */
const viewChat = (round: number): string => `App view ${round + 1}`;
const callId = (round: number): string => `call_view_${round + 1}`;
const BUTTON = '#get-time-btn';

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

function viewCall(identity: string, id: string): ToolCallRecord {
  const text = '2026-01-01T00:00:00.000Z';
  return {
    toolCallId: id,
    serverName: 'Clock',
    toolName: 'get-time',
    viewUri: 'ui://get-time/mcp-app.html',
    viewIdentity: identity,
    args: {},
    modelCall: { id, name: 'Clock__get-time', arguments: { kind: 'parsed', value: {} } },
    status: 'success',
    decision: { outcome: 'allow', actor: 'policy', reason: "Auto-approved: tool setting 'Clock.get-time'" },
    result: {
      isError: false,
      content: [{ type: 'text', text }],
      sizeBytes: text.length,
      forModel: { text, truncated: false },
    },
    durationMs: 2,
  };
}

/** A data folder with the Clock server, a chat a round (and one to warm up) whose reply has a call with a view, and the view's HTML. */
async function seed(): Promise<{ home: string; html: string; csp: McpAppView['csp'] | undefined }> {
  const chatIds: string[] = [];
  let html = '';
  let csp: McpAppView['csp'] | undefined;
  let identity = '';
  const home = await seededHome(async (services) => {
    services.mcpServers.add('Clock', { command: process.execPath, args: [BASIC, '--stdio'] });
    for (let round = -1; round < ROUNDS; round++) chatIds.push(services.chats.create({ title: viewChat(round) }).id);
    services.chats.create({ title: OTHER_CHAT });
    services.mcp.start();
    for (let attempt = 0; attempt < 600; attempt++) {
      if (services.mcp.tools('Clock').some((tool) => tool.name === 'get-time' && tool.available)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const view = await services.appViews.show('Clock', 'get-time');
    html = view.html;
    csp = view.csp;
    identity = view.identity ?? '';
    await services.mcp.stop();
  });
  if (!html) throw new Error('The example server gave no view.');
  const db = openDatabase(path.join(home, 'workbench.db'));
  const store = createMessageStore(db);
  chatIds.forEach((chatId, index) => {
    store.append(
      { role: 'user', chatId, exchangeId: 'x-1', text: 'What time is it?' } as NewMessage,
      1_700_000_000_000,
    );
    store.append(
      {
        role: 'assistant',
        chatId,
        exchangeId: 'x-1',
        providerId: 'demo',
        model: 'demo',
        reply: {
          timestamp: 0,
          turns: [
            { message: '', toolCalls: [viewCall(identity, callId(index - 1))] },
            { message: 'Here is the time.' },
          ],
        },
        end: 'stop',
      } as NewMessage,
      1_700_000_000_500,
    );
  });
  db.close();
  return { home, html, csp };
}

/**
 * The floors' page: `showView()` puts the view's HTML in a plain sandboxed frame; `showDouble(url)` does what the
 * MCP Apps specification's double frame needs and nothing more — a frame of the proxy page `url` (on another origin,
 * the app's own proxy page served by a server of its own) and, once it says it is ready, the HTML posted to it.
 * Each notes when it started.
 */
async function startFloorServer(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>
<script>
const html = ${JSON.stringify(html).replace(/</g, '\\u003c')};
window.showView = () => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width:800px;height:560px;border:0';
  frame.srcdoc = html;
  window.__started = Date.now();
  document.body.replaceChildren(frame);
};
window.showDouble = (url) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  frame.style.cssText = 'width:800px;height:560px;border:0';
  const onMessage = (event) => {
    if (event.source !== frame.contentWindow || !event.data || event.data.method !== 'ui/notifications/sandbox-proxy-ready') return;
    window.removeEventListener('message', onMessage);
    const ready = { jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html } };
    frame.contentWindow.postMessage(ready, new URL(url).origin);
  };
  window.addEventListener('message', onMessage);
  frame.src = url;
  window.__started = Date.now();
  document.body.replaceChildren(frame);
};
</script></body></html>`;
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * In every frame: a `srcdoc` frame (the view's own document, in the app and in the floor alike) tells the benchmark
 * when the browser first painted content in it (Paint Timing's `first-contentful-paint`, epoch ms).
 */
const WATCH_PAINT = `(() => {
  if (location.href !== 'about:srcdoc') return;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.name === 'first-contentful-paint') window.__viewPainted(performance.timeOrigin + entry.startTime);
  }).observe({ type: 'paint', buffered: true });
})()`;

/** The first paint of a view's frame since `reset`, as the frames report it. */
async function watchPaints(context: BrowserContext): Promise<{ reset(): void; painted(): Promise<number> }> {
  let painted: number | undefined;
  let wake: (() => void) | undefined;
  await context.exposeBinding('__viewPainted', (_source, at: number) => {
    painted ??= at;
    wake?.();
  });
  await context.addInitScript(WATCH_PAINT);
  return {
    reset: () => (painted = undefined),
    painted: async () => {
      for (let waited = 0; painted === undefined && waited < 100; waited++)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      if (painted === undefined) throw new Error('The view frame reported no first contentful paint.');
      return painted;
    },
  };
}

/** Notes when the view's tool block first appears, in the page's clock (epoch ms). */
const watchBlock = (id: string): string => `(() => {
  window.__started = undefined;
  const seen = () => document.querySelector('[data-tool-call-id="${id}"]');
  const observer = new MutationObserver(() => {
    if (window.__started === undefined && seen()) { window.__started = Date.now(); observer.disconnect(); }
  });
  observer.observe(document.body, { childList: true, subtree: true });
})()`;

/** Round `round`'s view, opened from another chat: shown for the first time in the page, or again. */
async function appRound(page: Page, paints: Paints, round: number): Promise<number> {
  const chats = page.getByRole('navigation', { name: 'Chats' });
  await chats.getByRole('button', { name: OTHER_CHAT, exact: true }).click();
  await page.locator('.chat-title', { hasText: OTHER_CHAT }).waitFor();
  await page.evaluate(watchBlock(callId(round)));
  paints.reset();
  await chats.getByRole('button', { name: viewChat(round), exact: true }).click();
  const button = page
    .locator(`[data-tool-call-id="${callId(round)}"] [data-testid="app-view"] iframe`)
    .contentFrame()
    .locator('iframe')
    .contentFrame()
    .locator(BUTTON);
  // Playwright looks into the frames only once the paint was reported: its injected scripts would cost the page.
  const painted = await paints.painted();
  await button.waitFor({ state: 'visible', timeout: 60_000 });
  return painted - ((await page.evaluate('window.__started')) as number);
}

async function floorRound(page: Page, url: string, paints: Paints): Promise<number> {
  await page.goto(url);
  paints.reset();
  await page.evaluate('window.showView()');
  const painted = await paints.painted();
  await page.locator('iframe').contentFrame().locator(BUTTON).waitFor({ state: 'visible', timeout: 60_000 });
  return painted - ((await page.evaluate('window.__started')) as number);
}

async function doubleRound(page: Page, url: string, proxyUrl: string, paints: Paints): Promise<number> {
  await page.goto(url);
  paints.reset();
  await page.evaluate(`window.showDouble(${JSON.stringify(proxyUrl)})`);
  const painted = await paints.painted();
  await page
    .locator('iframe')
    .contentFrame()
    .locator('iframe')
    .contentFrame()
    .locator(BUTTON)
    .waitFor({ state: 'visible', timeout: 60_000 });
  return painted - ((await page.evaluate('window.__started')) as number);
}

type Paints = Awaited<ReturnType<typeof watchPaints>>;

export const appViewFirstRender: Benchmark = {
  name: 'app-view-first-render',
  description:
    "an MCP Apps view from its tool block's appearance to its first content (shown for the first time, and again), against the same HTML in a plain frame",
  async run(): Promise<NamedBenchMeasurement[]> {
    const { home, html, csp } = await seed();
    const floorServer = await startFloorServer(html);
    const floorOrigin = new URL(floorServer.url).origin;
    const proxyServer = await startAppFrameServer({ hostOrigins: () => [floorOrigin] });
    const proxyUrl = `${proxyServer.origin}${APP_FRAME_PATH}?${new URLSearchParams({ csp: JSON.stringify(csp ?? {}) }).toString()}`;
    const session = await openUi(home);
    try {
      const appPaints = await watchPaints(session.page.context());
      await session.page.reload();
      const floorContext = await session.browser.newContext({ viewport: { width: 1200, height: 800 } });
      const floorPaints = await watchPaints(floorContext);
      const floorPage = await floorContext.newPage();
      const first: number[] = [];
      const again: number[] = [];
      const floor: number[] = [];
      const double: number[] = [];
      const loadBefore = loadAverage();
      // One of each to warm up (the view's chunk, the server's first read), then interleaved rounds. Each round shows
      // a view of a call the page has not shown yet, then (after another chat) the same view again.
      await appRound(session.page, appPaints, -1);
      await floorRound(floorPage, floorServer.url, floorPaints);
      await doubleRound(floorPage, floorServer.url, proxyUrl, floorPaints);
      for (let round = 0; round < ROUNDS; round++) {
        first.push(await appRound(session.page, appPaints, round));
        floor.push(await floorRound(floorPage, floorServer.url, floorPaints));
        again.push(await appRound(session.page, appPaints, round));
        double.push(await doubleRound(floorPage, floorServer.url, proxyUrl, floorPaints));
      }
      const firstMs = median(first);
      const againMs = median(again);
      const floorMs = median(floor);
      const doubleMs = median(double);
      const list = (rounds: number[]): string => JSON.stringify(rounds.map(Math.round));
      console.error(
        `app-view-first-render: view ${list(first)} ms, shown again ${list(again)} ms, floor ${list(floor)} ms, ` +
          `bare double frame ${list(double)} ms; medians ${Math.round(firstMs)}, ${Math.round(againMs)}, ` +
          `${Math.round(floorMs)}, ${Math.round(doubleMs)} ms: view ÷ double frame ${(firstMs / doubleMs).toFixed(3)}, ` +
          `double frame ÷ floor ${(doubleMs / floorMs).toFixed(3)}; load average ${loadBefore} → ${loadAverage()}`,
      );
      const details = {
        floorMs,
        doubleFrameMs: doubleMs,
        doubleFrameVsFloor: doubleMs / floorMs,
        rounds: ROUNDS,
        htmlBytes: Buffer.byteLength(html),
      };
      return [
        {
          name: 'app-view-first-render',
          value: firstMs / floorMs,
          unit: '× floor',
          goal: { op: '<=', value: 1.5 },
          details: { ...details, appMs: firstMs, vsDoubleFrame: firstMs / doubleMs },
        },
        {
          name: 'app-view-shown-again',
          value: againMs / floorMs,
          unit: '× floor',
          goal: { op: '<=', value: 1.5 },
          details: { ...details, appMs: againMs, vsDoubleFrame: againMs / doubleMs },
        },
      ];
    } finally {
      await session.close();
      await floorServer.close();
      await proxyServer.close();
    }
  },
};
