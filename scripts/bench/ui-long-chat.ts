/**
 * `ui-long-chat`: a chat of 10,000 messages (5,000 exchanges of text, code, tables and tool calls) opened in
 * Chromium: from the click to its latest exchange on screen, against a floor in the same Chromium — a bare page that
 * fetches the same messages as plain text and puts all of them in the DOM, laid out only where on screen — goal ≤ 2×;
 * and scrolling all the way to its first message (paging back as it goes) must cause no long task (> 50 ms,
 * PerformanceObserver `longtask`). A long task's wall time counts the time the page's thread waited for a CPU, which
 * on a loaded host is most of it; so a Chromium trace of the scroll also gives each task's own CPU time (the thread
 * time of its `RunTask`), and the floor page is scrolled the same way, both measured alike, in the same run.
 */
import type { NewMessage } from '../../src/main/chat/message-store.ts';
import { createMessageStore } from '../../src/main/chat/message-store.ts';
import { openDatabase } from '../../src/main/storage/database.ts';
import type { ToolCallRecord } from '../../src/shared/messages.ts';
import type { Benchmark, NamedBenchMeasurement } from './harness.ts';
import { loadAverage, openUi, profileIfAsked, seededHome } from './ui-support.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';

const EXCHANGES = 5_000;
/** One wheel step of 600 px per frame: a fast flick through the whole chat (Playwright delivers about 20 a second here). */
const WHEEL_STEP_PX = 600;
const LONG_TITLE = 'Long chat';
/** Wheel steps per traced segment of the scroll. */
const SEGMENT_STEPS = 100;
/** Exchanges in one page the store loads (PAGE_SIZE messages, two per exchange here). */
const PAGE_EXCHANGES = 50;
/** The index of the topmost exchange the list shows. */
const TOP_EXCHANGE = `(() => {
  const list = document.querySelector('.message-list').getBoundingClientRect();
  const rows = [...document.querySelectorAll('.message-list [data-exchange-id]')].filter((row) => row.getBoundingClientRect().bottom > list.top);
  return rows.length ? Number(rows[0].dataset.exchangeId.slice(2)) : -1;
})()`;

function reply(index: number): string {
  const parts = [
    `Answer **${index}**: here is what I found about item ${index}, with a [link](https://example.com/${index}) and \`inline code\`.`,
  ];
  if (index % 5 === 0)
    parts.push(
      '```ts\n' +
        `export function item${index}(value: number): number {\n  // doubles the value\n  return value * 2 + ${index};\n}\n` +
        '```',
    );
  if (index % 11 === 0)
    parts.push('| name | value |\n| --- | ---: |\n' + `| alpha | ${index} |\n| beta | ${index * 2} |`);
  if (index % 3 === 0)
    parts.push(
      `- first point about ${index}\n- second point\n- third point, a little longer than the others so that it wraps on narrow windows`,
    );
  return parts.join('\n\n');
}

function toolCall(index: number): ToolCallRecord {
  const text = `Contents of notes-${index}.txt:\n` + 'line of text\n'.repeat(8);
  return {
    toolCallId: `call-${index}`,
    serverName: 'Files',
    toolName: 'read_text_file',
    args: { path: `notes-${index}.txt` },
    modelCall: {
      id: `call-${index}`,
      name: 'Files__read_text_file',
      arguments: { kind: 'parsed', value: { path: `notes-${index}.txt` } },
    },
    status: 'success',
    decision: { outcome: 'allow', actor: 'policy', reason: "Auto-approved: tool setting 'Files.read_text_file'" },
    result: {
      isError: false,
      content: [{ type: 'text', text }],
      sizeBytes: text.length,
      forModel: { text, truncated: false },
    },
    durationMs: 3.2,
  };
}

export const exchangeId = (index: number): string => `x-${String(index).padStart(5, '0')}`;

export async function seed(): Promise<string> {
  let chatId = '';
  const home = await seededHome((services) => {
    chatId = services.chats.create({ title: LONG_TITLE }).id;
    services.chats.create({ title: 'Other chat' });
  });
  const db = openDatabase(path.join(home, 'workbench.db'));
  const store = createMessageStore(db);
  db.transaction(() => {
    for (let index = 0; index < EXCHANGES; index++) {
      const x = exchangeId(index);
      store.append(
        { role: 'user', chatId, exchangeId: x, text: `Question ${index}: tell me about item ${index}.` } as NewMessage,
        1_700_000_000_000 + index * 1000,
      );
      const turns =
        index % 7 === 0
          ? [{ message: 'Let me read the notes.', toolCalls: [toolCall(index)] }, { message: reply(index) }]
          : [{ message: reply(index) }];
      store.append(
        {
          role: 'assistant',
          chatId,
          exchangeId: x,
          providerId: 'demo',
          model: 'demo',
          reply: { timestamp: 0, turns },
          end: 'stop',
        } as NewMessage,
        1_700_000_000_000 + index * 1000 + 500,
      );
    }
  })();
  db.close();
  return home;
}

/** One task of the page's main thread in a trace: its wall time and the thread's own CPU time in it. */
interface TracedTask {
  wallMs: number;
  cpuMs: number;
}

/**
 * Runs `work` under a Chromium trace of top-level tasks and returns the tasks of the busiest renderer main thread
 * (the page's). Only the `toplevel` category: the trace itself must cost next to nothing.
 */
async function traceTasks(browser: Browser, page: Page, work: () => Promise<void>): Promise<TracedTask[]> {
  const file = path.join(os.tmpdir(), `aiwb-ui-long-chat-${process.pid}-${Date.now()}.json`);
  await browser.startTracing(page, { path: file, categories: ['toplevel'] });
  try {
    await work();
  } finally {
    await browser.stopTracing();
  }
  try {
    interface TraceEvent {
      name: string;
      ph: string;
      pid: number;
      tid: number;
      dur?: number;
      tdur?: number;
      args?: { name?: string };
    }
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
    const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
    // The busiest renderer main thread: the page scrolled (the other tab, when one is open, stands idle meanwhile).
    // The trace names the page's own process only under a category that costs far more to record.
    const mains = new Set(
      events
        .filter((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
        .map((event) => `${event.pid}:${event.tid}`),
    );
    const counts = new Map<string, number>();
    for (const event of events)
      if (event.ph === 'X' && event.name === 'ThreadControllerImpl::RunTask' && mains.has(`${event.pid}:${event.tid}`))
        counts.set(`${event.pid}:${event.tid}`, (counts.get(`${event.pid}:${event.tid}`) ?? 0) + 1);
    const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (!main) throw new Error('The trace names no renderer main thread.');
    return events
      .filter(
        (event) =>
          event.ph === 'X' && event.name === 'ThreadControllerImpl::RunTask' && `${event.pid}:${event.tid}` === main,
      )
      .map((event) => ({ wallMs: (event.dur ?? 0) / 1000, cpuMs: (event.tdur ?? 0) / 1000 }));
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The longest task by wall time and by CPU time, and the CPU time of every task over 50 ms of wall time. */
function longestOf(tasks: readonly TracedTask[]): { wallMs: number; cpuMs: number; cpuOfLongMs: number[] } {
  return {
    wallMs: Math.max(0, ...tasks.map((task) => task.wallMs)),
    cpuMs: Math.max(0, ...tasks.map((task) => task.cpuMs)),
    cpuOfLongMs: tasks.filter((task) => task.wallMs > 50).map((task) => Math.round(task.cpuMs)),
  };
}

function nearest<T extends { pagesUp: number }>(segments: readonly T[], pagesUp: number): T | undefined {
  return [...segments].sort((a, b) => Math.abs(a.pagesUp - pagesUp) - Math.abs(b.pagesUp - pagesUp))[0];
}

/** `steps` wheel steps up over the page's message list, as a person flicks (the app's run and the floor's alike). */
async function wheelUp(
  page: Page,
  until: () => Promise<boolean>,
  maxSteps: number,
  limitMs: number | null,
): Promise<number> {
  const box = await page.locator('.message-list').boundingBox();
  if (!box) throw new Error('The message list is not on screen.');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  let steps = 0;
  const started = Date.now();
  while (!(await until())) {
    await page.mouse.wheel(0, -WHEEL_STEP_PX);
    await page.waitForTimeout(16);
    if (++steps >= maxSteps) break;
    if (limitMs !== null && Date.now() - started > limitMs)
      throw new Error('Scrolling never reached the first message.');
  }
  return steps;
}

/** The floor page opened and scrolled up by `steps` wheel steps: its long tasks and its traced tasks. */
async function floorScroll(
  browser: Browser,
  url: string,
  steps: number,
): Promise<{ longTasks: number[]; traced: TracedTask[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  try {
    await page.goto(url);
    await page.evaluate(OPEN_AND_TIME);
    await page.evaluate(OBSERVE_LONG_TASKS);
    const traced = await traceTasks(browser, page, async () => {
      await wheelUp(page, async () => false, steps, null);
    });
    return { longTasks: (await page.evaluate('window.__longTasks.splice(0)')) as number[], traced };
  } finally {
    await page.close();
  }
}

const OBSERVE_LONG_TASKS = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); }).observe({ type: 'longtask' });
})()`;

/** The plain text of exchange `index`: its question, and its reply's turns with each tool call's result. */
function exchangeText(index: number): [question: string, answer: string] {
  const question = `Question ${index}: tell me about item ${index}.`;
  const answer =
    index % 7 === 0
      ? [
          'Let me read the notes.',
          JSON.stringify(toolCall(index).args),
          toolCall(index).result?.forModel.text ?? '',
          reply(index),
        ].join('\n\n')
      : reply(index);
  return [question, answer];
}

/**
 * The floor: a bare page, served by a bare Node HTTP server, whose button fetches the same 10,000 messages as plain
 * text and puts every one of them in the DOM (one element each, an exchange's two in one row), scrolled to the end.
 * Rows are `content-visibility: auto`, so the browser lays out only those on screen: without it the floor itself
 * took 7 s (laying out 10,000 messages), which is no floor for a list that shows one screenful.
 */
async function startFloorServer(): Promise<{ url: string; close(): Promise<void> }> {
  const messages = JSON.stringify(
    Array.from({ length: EXCHANGES }, (_, index) => ({ id: exchangeId(index), texts: exchangeText(index) })),
  );
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body style="display:flex;margin:0;height:100vh;font:15px/1.55 system-ui">
<nav style="width:260px"><button class="chat-item-title">${LONG_TITLE}</button></nav>
<div class="message-list" style="flex:1;overflow:auto"></div>
<script>
document.querySelector('.chat-item-title').addEventListener('click', async () => {
  const exchanges = await (await fetch('/messages')).json();
  const list = document.querySelector('.message-list');
  const rows = document.createDocumentFragment();
  for (const exchange of exchanges) {
    const row = document.createElement('div');
    row.dataset.exchangeId = exchange.id;
    // The browser's own virtualisation: rows off screen are not laid out (an estimated height until they are).
    row.style.contentVisibility = 'auto';
    row.style.containIntrinsicSize = 'auto 200px';
    for (const text of exchange.texts) {
      const message = document.createElement('div');
      message.style.whiteSpace = 'pre-wrap';
      message.textContent = text;
      row.append(message);
    }
    rows.append(row);
  }
  list.append(rows);
  list.scrollTop = list.scrollHeight;
});
</script></body></html>`;
  const server = http.createServer((request, response) => {
    const json = request.url === '/messages';
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'text/html; charset=utf-8' });
    response.end(json ? messages : page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function floorOpen(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  try {
    await page.goto(url);
    return (await page.evaluate(OPEN_AND_TIME)) as number;
  } finally {
    await page.close();
  }
}

const OPEN_AND_TIME = `(async () => {
  const button = [...document.querySelectorAll('.chat-item-title')].find((element) => element.textContent === ${JSON.stringify(LONG_TITLE)});
  const started = performance.now();
  button.click();
  return await new Promise((resolve) => {
    const check = () => {
      const last = document.querySelector('[data-exchange-id="${exchangeId(EXCHANGES - 1)}"]');
      const box = last?.getBoundingClientRect();
      if (box && box.height > 0 && box.top < innerHeight && box.bottom > 0 && getComputedStyle(last).visibility === 'visible') resolve(performance.now() - started);
      else requestAnimationFrame(check);
    };
    check();
  });
})()`;

export const uiLongChat: Benchmark = {
  name: 'ui-long-chat',
  description: `a chat of ${EXCHANGES * 2} messages opened and scrolled through in Chromium`,
  async run(): Promise<NamedBenchMeasurement[]> {
    const home = await seed();
    const floorServer = await startFloorServer();
    const session = await openUi(home);
    try {
      const { page } = session;
      const floorBefore = await floorOpen(session.browser, floorServer.url);
      await page
        .getByRole('navigation', { name: 'Chats' })
        .getByRole('button', { name: 'Other chat', exact: true })
        .click();
      await page.locator('.chat-title', { hasText: 'Other chat' }).waitFor();
      await page.evaluate(OBSERVE_LONG_TASKS);
      const openMs = (await page.evaluate(OPEN_AND_TIME)) as number;
      const openTasks = (await page.evaluate('window.__longTasks.splice(0)')) as number[];
      const floorAfter = await floorOpen(session.browser, floorServer.url);
      const floorMs = (floorBefore + floorAfter) / 2;

      // Scroll to the very first message with the wheel, as a person would (fast), paging back on the way.
      const first = page.locator(`[data-exchange-id="${exchangeId(0)}"]`);
      const started = Date.now();
      let steps = 0;
      const stopProfile = await profileIfAsked(await page.context().newCDPSession(page));
      // Traced in segments of wheel steps, each with how far up it ended: the page's CPU per task must not grow
      // with the pages scrolled past.
      const traced: TracedTask[] = [];
      const segments: { steps: number; pagesUp: number; cpuMs: number; wallMs: number }[] = [];
      while (steps < 20_000 && Date.now() - started < 900_000 && !(await first.isVisible())) {
        let segmentSteps = 0;
        const tasks = await traceTasks(session.browser, page, async () => {
          segmentSteps = await wheelUp(page, () => first.isVisible(), SEGMENT_STEPS, 900_000);
        });
        steps += segmentSteps;
        traced.push(...tasks);
        const top = (await page.evaluate(TOP_EXCHANGE)) as number;
        const longestHere = longestOf(tasks);
        segments.push({
          steps,
          pagesUp: Math.round(((EXCHANGES - 1 - top) / PAGE_EXCHANGES) * 10) / 10,
          cpuMs: Math.round(longestHere.cpuMs * 10) / 10,
          wallMs: Math.round(longestHere.wallMs),
        });
      }
      await stopProfile();
      if (!(await first.isVisible())) throw new Error('Scrolling never reached the first message.');
      const scrollTasks = (await page.evaluate('window.__longTasks.splice(0)')) as number[];
      const longest = Math.max(0, ...scrollTasks);
      const app = longestOf(traced);
      // The floor: the plain page scrolled up by as many wheel steps, measured alike.
      const floor = await floorScroll(session.browser, floorServer.url, steps);
      const floorLongest = Math.max(0, ...floor.longTasks);
      const floorTraced = longestOf(floor.traced);
      const load = loadAverage();
      console.error(
        `ui-long-chat: opened in ${openMs.toFixed(0)} ms (floor ${floorBefore.toFixed(0)}, ${floorAfter.toFixed(0)} ms); ${steps} wheel steps in ${((Date.now() - started) / 1000).toFixed(1)} s; long tasks while opening ${JSON.stringify(openTasks.map(Math.round))}, while scrolling ${JSON.stringify(scrollTasks.map(Math.round))} (CPU time of those over 50 ms ${JSON.stringify(app.cpuOfLongMs)}, most CPU in one task ${app.cpuMs.toFixed(1)} ms; by segment of ${SEGMENT_STEPS} steps, pages up: most CPU in one task, longest task ${segments.map((segment) => `${segment.pagesUp}: ${segment.cpuMs}/${segment.wallMs}`).join(', ')}); floor page scrolled alike: long tasks ${JSON.stringify(floor.longTasks.map(Math.round))}, longest task ${floorTraced.wallMs.toFixed(1)} ms, most CPU in one task ${floorTraced.cpuMs.toFixed(1)} ms; load average ${load}`,
      );
      return [
        {
          name: 'ui-long-chat-open',
          value: openMs / floorMs,
          unit: '× floor',
          goal: { op: '<=', value: 2 },
          details: {
            openMs,
            floorMs,
            floorBeforeMs: floorBefore,
            floorAfterMs: floorAfter,
            messages: EXCHANGES * 2,
            longTasksWhileOpening: openTasks.length,
          },
        },
        {
          name: 'ui-long-chat-scroll-longest-task',
          value: longest,
          unit: 'ms',
          goal: { op: '<=', value: 50 },
          details: {
            longTasks: scrollTasks.length,
            wheelSteps: steps,
            longestCpuOfLongTasksMs: Math.max(0, ...app.cpuOfLongMs),
            floorLongestTaskMs: floorLongest,
            floorLongTasks: floor.longTasks.length,
            load1: Number(load.split(' ')[0]),
          },
        },
        {
          name: 'ui-long-chat-scroll-longest-task-cpu',
          value: app.cpuMs,
          unit: 'ms',
          goal: { op: '<=', value: 50 },
          details: {
            floorLongestTaskCpuMs: floorTraced.cpuMs,
            tasks: traced.length,
            floorTasks: floor.traced.length,
            longestTaskWallMs: app.wallMs,
            // The most CPU in one task in the first segment of the scroll and in the one nearest 20 pages up.
            firstSegmentCpuMs: segments[0]?.cpuMs ?? 0,
            twentyPagesUpSegmentCpuMs: nearest(segments, 20)?.cpuMs ?? 0,
            lastSegmentCpuMs: segments.at(-1)?.cpuMs ?? 0,
            floorLongestTaskWallMs: floorTraced.wallMs,
          },
        },
      ];
    } finally {
      await session.close();
      await floorServer.close();
    }
  },
};
