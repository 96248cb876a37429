/**
 * `ui-streaming`: a reply streamed at 100 tokens/s until it is 20,000 characters of Markdown (paragraphs, lists,
 * code, tables) through the whole app: an OpenAI-compatible server paced by a timer, the provider adapter, the
 * tool loop, the WebSocket, the chat store and the incremental Markdown renderer in Chromium. Measured: Chromium's
 * main-thread task time (CDP `Performance.getMetrics` TaskDuration) per token, early in the reply and at its end.
 * The goal is ≤ 2 ms per token at both ends: the cost of a token must not grow with the reply.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Benchmark, NamedBenchMeasurement } from './harness.ts';
import { loadAverage, openUi, profileIfAsked, seededHome } from './ui-support.ts';

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
        blocks.push(`## Part ${index}\n\nThis paragraph explains part ${index} in some detail, with **bold** words, *emphasis* and \`code\`, so that the inline parser has work to do on every line of it.`);
        break;
      case 1:
        blocks.push(`- step one of part ${index}\n- step two, which is a little longer\n- step three with a [link](https://example.com/${index})`);
        break;
      case 2:
        blocks.push('```ts\n' + `function part${index}(input: string): string {\n  const words = input.split(' ');\n  return words.map((word) => word.toUpperCase()).join(' ');\n}\n` + '```');
        break;
      case 3:
        blocks.push(`| item | count | note |\n| --- | ---: | --- |\n| alpha | ${index} | first |\n| beta | ${index * 2} | second |`);
        break;
      default:
        blocks.push(`> A quoted remark about part ${index}, which goes on for a while so that it wraps across the width of the message.`);
    }
  }
  return blocks.join('\n\n').slice(0, TOTAL_CHARS);
}

interface PacedServer {
  baseURL: string;
  /** Characters sent so far in the current reply. */
  sent(): number;
  done: Promise<void>;
  close(): Promise<void>;
}

/** An OpenAI-compatible server whose one reply streams `text` in 10-character tokens every 10 ms. */
async function startPacedServer(text: string): Promise<PacedServer> {
  let sent = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-paced', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'paced', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const server = http.createServer({ noDelay: true }, (request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'paced', object: 'model', created: 0, owned_by: 'bench' }] }));
      return;
    }
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(chunk({ role: 'assistant', content: '' }, null));
    const timer = setInterval(() => {
      if (sent >= text.length) {
        clearInterval(timer);
        response.write(chunk({}, 'stop'));
        response.end('data: [DONE]\n\n');
        finish();
        return;
      }
      response.write(chunk({ content: text.slice(sent, sent + TOKEN_CHARS) }, null));
      sent += TOKEN_CHARS;
    }, TOKEN_INTERVAL_MS);
    response.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    sent: () => sent,
    done,
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
  if (!first || !last || last.chars === first.chars) throw new Error(`Too few samples between ${from} and ${to} characters.`);
  return (last.taskMs - first.taskMs) / ((last.chars - first.chars) / TOKEN_CHARS);
}

export const uiStreaming: Benchmark = {
  name: 'ui-streaming',
  description: `a reply streamed at ${1000 / TOKEN_INTERVAL_MS} tokens/s to ${TOTAL_CHARS} characters, main-thread work per token early and late`,
  async run(): Promise<NamedBenchMeasurement[]> {
    const text = longReply();
    const paced = await startPacedServer(text);
    const home = await seededHome((services) => {
      services.providers.add({ kind: 'openai-compatible', id: 'paced', label: 'Paced', baseURL: paced.baseURL, defaultModel: 'paced' });
      services.chats.create({ title: TITLE, providerId: 'paced', model: 'paced' });
    });
    const session = await openUi(home);
    try {
      const { page } = session;
      await page.locator('.chat-title', { hasText: TITLE }).waitFor();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      const taskMs = async (): Promise<number> => {
        const { metrics } = await cdp.send('Performance.getMetrics');
        return (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0) * 1000;
      };
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.fill('Write a long answer.');
      await input.press('Enter');
      const samples: Sample[] = [];
      const stopProfile = await profileIfAsked(cdp);
      let finished = false;
      void paced.done.then(() => (finished = true));
      while (!finished) {
        samples.push({ chars: paced.sent(), taskMs: await taskMs() });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await stopProfile();
      // The whole reply is on screen (the tail of the last block is there).
      await page.getByTestId('assistant-message').getByText(text.trim().split('\n').at(-1)?.trim().slice(-20) ?? '', { exact: false }).first().waitFor();
      const early = perToken(samples, 1_000, 5_000);
      const late = perToken(samples, 16_000, 20_000);
      const load = loadAverage();
      console.error(`ui-streaming: ${samples.length} samples; early ${early.toFixed(3)} ms/token, late ${late.toFixed(3)} ms/token; load average ${load}`);
      return [
        { name: 'ui-streaming-early', value: early, unit: 'ms/token', goal: { op: '<=', value: 2 }, details: { fromChars: 1_000, toChars: 5_000, load1: Number(load.split(' ')[0]) } },
        { name: 'ui-streaming-late', value: late, unit: 'ms/token', goal: { op: '<=', value: 2 }, details: { fromChars: 16_000, toChars: 20_000, load1: Number(load.split(' ')[0]) } },
      ];
    } finally {
      await session.close();
      await paced.close();
    }
  },
};
