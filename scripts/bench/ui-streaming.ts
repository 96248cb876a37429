/**
 * `ui-streaming`: a reply streamed at 100 tokens/s until it is 20,000 characters of Markdown (paragraphs, lists,
 * code, tables) through the whole app: an OpenAI-compatible server paced by a timer, the provider adapter, the
 * tool loop, the WebSocket, the chat store and the incremental Markdown renderer in Chromium. Measured: Chromium's
 * main-thread task time (CDP `Performance.getMetrics` TaskDuration) per token, early in the reply (1–5k characters)
 * and at its end (16–20k), against the paint floor in the same Chromium: a bare page that reads the same stream and
 * appends each token as plain text to one element (measured before and after the app's reply; their mean).
 * Goals (docs/dev/benchmarks.md): ≤ 2× the floor at both ends, and ≤ 0.7 ms per token absolute on a quiet machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Benchmark, NamedBenchMeasurement } from './harness.ts';
import type { CDPSession, Page } from '@playwright/test';
import { loadAverage, openUi, profileIfAsked, seededHome, type UiSession } from './ui-support.ts';

const TOKEN_CHARS = 10;
const TOTAL_CHARS = 20_000;
const TOKEN_INTERVAL_MS = 10;
const TITLE = 'Streaming chat';

/** A long Markdown reply of varied blocks. */
export function longReply(): string {
  const blocks: string[] = [];
  for (let index = 0; blocks.join('\n\n').length < TOTAL_CHARS; index++) {
    switch (index % 5) {
      case 0:
        blocks.push(
          `## Part ${index}\n\nThis paragraph explains part ${index} in some detail, with **bold** words, *emphasis* and \`code\`, so that the inline parser has work to do on every line of it.`,
        );
        break;
      case 1:
        blocks.push(
          `- step one of part ${index}\n- step two, which is a little longer\n- step three with a [link](https://example.com/${index})`,
        );
        break;
      case 2:
        blocks.push(
          '```ts\n' +
            `function part${index}(input: string): string {\n  const words = input.split(' ');\n  return words.map((word) => word.toUpperCase()).join(' ');\n}\n` +
            '```',
        );
        break;
      case 3:
        blocks.push(
          `| item | count | note |\n| --- | ---: | --- |\n| alpha | ${index} | first |\n| beta | ${index * 2} | second |`,
        );
        break;
      default:
        blocks.push(
          `> A quoted remark about part ${index}, which goes on for a while so that it wraps across the width of the message.`,
        );
    }
  }
  return blocks.join('\n\n').slice(0, TOTAL_CHARS);
}

interface PacedServer {
  baseURL: string;
  /** The floor page: the same stream read by a bare page that appends each token as plain text to one element. */
  floorURL: string;
  /** Characters sent so far in the latest reply. */
  sent(): number;
  /** Resolves when a reply that starts after this call has been sent whole. */
  nextReply(): Promise<void>;
  close(): Promise<void>;
}

/** The floor page: reads the same SSE stream with fetch and appends each token's text to one element. */
const FLOOR_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head>
<body style="margin:0;font:15px/1.55 system-ui"><div id="out" style="max-width:760px;margin:16px auto;white-space:pre-wrap;overflow-wrap:anywhere"></div>
<script>
window.startFloor = async () => {
  const out = document.getElementById('out');
  const response = await fetch('/v1/chat/completions', { method: 'POST', body: '{}' });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\\n\\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const text = JSON.parse(line.slice(6)).choices[0].delta.content;
      if (text) out.append(text);
    }
  }
};
</script></body></html>`;

/** An OpenAI-compatible server whose replies stream `text` in 10-character tokens every 10 ms; it serves the floor page too. */
export async function startPacedServer(text: string): Promise<PacedServer> {
  let sent = 0;
  let waiting: (() => void)[] = [];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-paced', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'paced', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const server = http.createServer({ noDelay: true }, (request, response) => {
    if (request.method === 'GET' && request.url === '/floor') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(FLOOR_PAGE);
      return;
    }
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ object: 'list', data: [{ id: 'paced', object: 'model', created: 0, owned_by: 'bench' }] }),
      );
      return;
    }
    request.resume();
    const finish = waiting;
    waiting = [];
    sent = 0;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(chunk({ role: 'assistant', content: '' }, null));
    const timer = setInterval(() => {
      if (sent >= text.length) {
        clearInterval(timer);
        response.write(chunk({}, 'stop'));
        response.end('data: [DONE]\n\n');
        for (const done of finish) done();
        return;
      }
      response.write(chunk({ content: text.slice(sent, sent + TOKEN_CHARS) }, null));
      sent += TOKEN_CHARS;
    }, TOKEN_INTERVAL_MS);
    response.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseURL: `${origin}/v1`,
    floorURL: `${origin}/floor`,
    sent: () => sent,
    nextReply: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Sample {
  chars: number;
  taskMs: number;
}

/** ms of main-thread work per token between the first and last sample taken while `chars` was in [from, to). */
function perToken(samples: readonly Sample[], from: number, to: number): number {
  const inside = samples.filter((sample) => sample.chars >= from && sample.chars < to);
  const first = inside[0];
  const last = inside.at(-1);
  if (!first || !last || last.chars === first.chars)
    throw new Error(`Too few samples between ${from} and ${to} characters.`);
  return (last.taskMs - first.taskMs) / ((last.chars - first.chars) / TOKEN_CHARS);
}

/** Main-thread task time (ms) of a page so far, from CDP. */
async function taskClock(page: Page): Promise<{ cdp: CDPSession; taskMs: () => Promise<number> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return {
    cdp,
    taskMs: async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0) * 1000;
    },
  };
}

interface Window {
  early: number;
  late: number;
}

/** Starts a reply with `begin` and samples the page's task time against the characters sent until it is whole. */
async function measureReply(
  paced: PacedServer,
  page: Page,
  begin: () => Promise<void>,
  profile = false,
): Promise<Window> {
  const { cdp, taskMs } = await taskClock(page);
  const replied = paced.nextReply();
  let finished = false;
  void replied.then(() => (finished = true));
  const stopProfile = profile ? await profileIfAsked(cdp) : async () => {};
  await begin();
  const samples: Sample[] = [];
  while (!finished) {
    samples.push({ chars: paced.sent(), taskMs: await taskMs() });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stopProfile();
  await cdp.detach();
  return { early: perToken(samples, EARLY[0], EARLY[1]), late: perToken(samples, LATE[0], LATE[1]) };
}

const EARLY = [1_000, 5_000] as const;
const LATE = [16_000, 20_000] as const;
/** Absolute goal on a quiet machine (docs/dev/benchmarks.md; PostHog's block-split renderer reached 0.35). */
const ABSOLUTE_GOAL_MS = 0.7;

/** The floor: the same stream appended as plain text to one element by a bare page in the same Chromium. */
async function floorReply(paced: PacedServer, session: UiSession): Promise<Window> {
  const page = await session.browser.newPage({ viewport: { width: 1200, height: 800 } });
  try {
    await page.goto(paced.floorURL);
    return await measureReply(paced, page, async () => {
      void page.evaluate('window.startFloor()');
    });
  } finally {
    await page.close();
  }
}

export const uiStreaming: Benchmark = {
  name: 'ui-streaming',
  description: `a reply streamed at ${1000 / TOKEN_INTERVAL_MS} tokens/s to ${TOTAL_CHARS} characters through the whole app, main-thread work per token early and late, against a page appending the same tokens as plain text`,
  async run(): Promise<NamedBenchMeasurement[]> {
    const text = longReply();
    const paced = await startPacedServer(text);
    const home = await seededHome((services) => {
      services.providers.add({
        kind: 'openai-compatible',
        id: 'paced',
        label: 'Paced',
        baseURL: paced.baseURL,
        defaultModel: 'paced',
      });
      services.chats.create({ title: TITLE, providerId: 'paced', model: 'paced' });
    });
    const session = await openUi(home);
    try {
      const { page } = session;
      await page.locator('.chat-title', { hasText: TITLE }).waitFor();
      // Floor, app, floor: the floor is the mean of the two around the app's reply.
      const before = await floorReply(paced, session);
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.fill('Write a long answer.');
      const app = await measureReply(
        paced,
        page,
        async () => {
          await input.press('Enter');
        },
        true,
      );
      // The whole reply is on screen (the tail of the last block is there).
      await page
        .getByTestId('assistant-message')
        .getByText(text.trim().split('\n').at(-1)?.trim().slice(-20) ?? '', { exact: false })
        .first()
        .waitFor();
      const after = await floorReply(paced, session);
      const floor = { early: (before.early + after.early) / 2, late: (before.late + after.late) / 2 };
      const load = loadAverage();
      const load1 = Number(load.split(' ')[0]);
      console.error(
        `ui-streaming: app ${app.early.toFixed(3)} / ${app.late.toFixed(3)} ms/token early / late; floor ${before.early.toFixed(3)}, ${after.early.toFixed(3)} / ${before.late.toFixed(3)}, ${after.late.toFixed(3)}; load average ${load}`,
      );
      const details = (from: number, to: number, appMs: number, floorMs: number): Record<string, number> => ({
        fromChars: from,
        toChars: to,
        appMsPerToken: appMs,
        floorMsPerToken: floorMs,
        load1,
      });
      return [
        {
          name: 'ui-streaming-early',
          value: app.early / floor.early,
          unit: '× floor',
          goal: { op: '<=', value: 2 },
          details: details(EARLY[0], EARLY[1], app.early, floor.early),
        },
        {
          name: 'ui-streaming-late',
          value: app.late / floor.late,
          unit: '× floor',
          goal: { op: '<=', value: 2 },
          details: details(LATE[0], LATE[1], app.late, floor.late),
        },
        {
          name: 'ui-streaming-ms-per-token',
          value: Math.max(app.early, app.late),
          unit: 'ms/token',
          goal: { op: '<=', value: ABSOLUTE_GOAL_MS },
          details: { early: app.early, late: app.late, load1 },
        },
      ];
    } finally {
      await session.close();
      await paced.close();
    }
  },
};
