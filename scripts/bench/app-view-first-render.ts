/**
 * `app-view-first-render`: an MCP Apps view (the published example @modelcontextprotocol/server-basic-vanillajs, run
 * for real by browser mode) in Chromium, from its tool call's block appearing in the chat to the view's first content
 * on screen (its "Get Server Time" button visible) — through the lazy view chunk, `mcp.appView` (the server read, the
 * pin check), the frame origin's proxy and the ext-apps host bridge — against a floor in the same Chromium: the same
 * HTML in a plain sandboxed frame (`sandbox="allow-scripts"`, `srcdoc`) on a bare page, from the frame's insertion
 * to the same button visible. Both ends are read the same way (the start in the page, the end by Playwright), rounds
 * interleaved; a ratio of medians. Goal ≤ 1.5× (docs/dev/benchmarks.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { ToolCallRecord } from '../../src/shared/messages.ts';
import type { NewMessage } from '../../src/main/chat/message-store.ts';
import { createMessageStore } from '../../src/main/chat/message-store.ts';
import { openDatabase } from '../../src/main/storage/database.ts';
import { ROOT } from '../lib/project.ts';
import type { Benchmark, BenchMeasurement } from './harness.ts';
import { loadAverage, openUi, seededHome } from './ui-support.ts';

const ROUNDS = Number(process.env['APP_VIEW_ROUNDS'] ?? 7);
const BASIC = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const VIEW_CHAT = 'App view';
const OTHER_CHAT = 'Other chat';
const CALL_ID = 'call_view';
const BUTTON = '#get-time-btn';

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

function viewCall(identity: string): ToolCallRecord {
  const text = '2026-01-01T00:00:00.000Z';
  return {
    toolCallId: CALL_ID,
    serverName: 'Clock',
    toolName: 'get-time',
    viewUri: 'ui://get-time/mcp-app.html',
    viewIdentity: identity,
    args: {},
    modelCall: { id: CALL_ID, name: 'Clock__get-time', arguments: { kind: 'parsed', value: {} } },
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

/** A data folder with the Clock server, a chat whose reply has a call with a view, and the view's HTML. */
async function seed(): Promise<{ home: string; html: string }> {
  let chatId = '';
  let html = '';
  let identity = '';
  const home = await seededHome(async (services) => {
    services.mcpServers.add('Clock', { command: process.execPath, args: [BASIC, '--stdio'] });
    chatId = services.chats.create({ title: VIEW_CHAT }).id;
    services.chats.create({ title: OTHER_CHAT });
    services.mcp.start();
    for (let attempt = 0; attempt < 600; attempt++) {
      if (services.mcp.tools('Clock').some((tool) => tool.name === 'get-time' && tool.available)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const view = await services.appViews.show('Clock', 'get-time');
    html = view.html;
    identity = view.identity ?? '';
    await services.mcp.stop();
  });
  if (!html) throw new Error('The example server gave no view.');
  const db = openDatabase(path.join(home, 'workbench.db'));
  const store = createMessageStore(db);
  store.append({ role: 'user', chatId, exchangeId: 'x-1', text: 'What time is it?' } as NewMessage, 1_700_000_000_000);
  store.append(
    {
      role: 'assistant',
      chatId,
      exchangeId: 'x-1',
      providerId: 'demo',
      model: 'demo',
      reply: {
        timestamp: 0,
        turns: [{ message: '', toolCalls: [viewCall(identity)] }, { message: 'Here is the time.' }],
      },
      end: 'stop',
    } as NewMessage,
    1_700_000_000_500,
  );
  db.close();
  return { home, html };
}

/** The floor's page: a button that puts the view's HTML in a plain sandboxed frame, noting when. */
async function startFloorServer(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>
<script>
window.showView = () => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width:800px;height:560px;border:0';
  frame.srcdoc = ${JSON.stringify(html).replace(/</g, '\\u003c')};
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

/** Notes when the view's tool block first appears, in the page's clock (epoch ms). */
const WATCH_BLOCK = `(() => {
  window.__started = undefined;
  const seen = () => document.querySelector('[data-tool-call-id="${CALL_ID}"]');
  const observer = new MutationObserver(() => {
    if (window.__started === undefined && seen()) { window.__started = Date.now(); observer.disconnect(); }
  });
  observer.observe(document.body, { childList: true, subtree: true });
})()`;

async function appRound(page: Page): Promise<number> {
  const chats = page.getByRole('navigation', { name: 'Chats' });
  await chats.getByRole('button', { name: OTHER_CHAT, exact: true }).click();
  await page.locator('.chat-title', { hasText: OTHER_CHAT }).waitFor();
  await page.evaluate(WATCH_BLOCK);
  await chats.getByRole('button', { name: VIEW_CHAT, exact: true }).click();
  const button = page
    .locator(`[data-tool-call-id="${CALL_ID}"] [data-testid="app-view"] iframe`)
    .contentFrame()
    .locator('iframe')
    .contentFrame()
    .locator(BUTTON);
  await button.waitFor({ state: 'visible', timeout: 60_000 });
  const ended = Date.now();
  return ended - ((await page.evaluate('window.__started')) as number);
}

async function floorRound(page: Page, url: string): Promise<number> {
  await page.goto(url);
  await page.evaluate('window.showView()');
  await page.locator('iframe').contentFrame().locator(BUTTON).waitFor({ state: 'visible', timeout: 60_000 });
  const ended = Date.now();
  return ended - ((await page.evaluate('window.__started')) as number);
}

export const appViewFirstRender: Benchmark = {
  name: 'app-view-first-render',
  description:
    "an MCP Apps view from its tool block's appearance to its first content, against the same HTML in a plain frame",
  async run(): Promise<BenchMeasurement> {
    const { home, html } = await seed();
    const floorServer = await startFloorServer(html);
    const session = await openUi(home);
    try {
      const floorPage = await session.browser.newPage({ viewport: { width: 1200, height: 800 } });
      const app: number[] = [];
      const floor: number[] = [];
      // One of each to warm up (the view's chunk, the server's first read), then interleaved rounds.
      await appRound(session.page);
      await floorRound(floorPage, floorServer.url);
      for (let round = 0; round < ROUNDS; round++) {
        app.push(await appRound(session.page));
        floor.push(await floorRound(floorPage, floorServer.url));
      }
      const appMs = median(app);
      const floorMs = median(floor);
      console.error(
        `app-view-first-render: view ${JSON.stringify(app)} ms, floor ${JSON.stringify(floor)} ms; load average ${loadAverage()}`,
      );
      return {
        value: appMs / floorMs,
        unit: '× floor',
        goal: { op: '<=', value: 1.5 },
        details: { appMs, floorMs, rounds: ROUNDS, htmlBytes: Buffer.byteLength(html) },
      };
    } finally {
      await session.close();
      await floorServer.close();
    }
  },
};
