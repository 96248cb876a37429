import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { startFakeLlmServer } from '../../src/main/llm/testing/fake-llm-server.ts';
import { createServices } from '../../src/main/services.ts';
import { percentile, type Benchmark } from './harness.ts';

const WARMUP = Number(process.env.FT_WARMUP ?? 200);
const SAMPLES = Number(process.env.FT_SAMPLES ?? 1500);
const KEY = 'sk-bench';
const MODEL = 'fake-large';
const PROMPT = 'Say hello.';

/**
 * Time to the first streamed token through the whole tool loop (a user message sent to `conversations.send` until
 * the first `text` event of `chat.onDidStream`: storing the message, the history, the OpenAI adapter, the event
 * batching) against the raw `openai` SDK stream of the same prompt from the same fake server. The two alternate,
 * and which goes first alternates too, so machine noise hits both alike. Each exchange is waited for to its end,
 * so that both leave the connection in the keep-alive pool the same way; each runs in a new chat.
 */
export const firstToken: Benchmark = {
  name: 'first-token',
  description:
    'p50 time to the first streamed token through the tool loop (send → first chat.onDidStream text) minus the raw openai SDK stream, same fake server',
  async run() {
    const server = await startFakeLlmServer({ apiKey: KEY });
    const baseURL = server.baseURL('openai');
    const raw = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-first-token-'));
    // No MCP server is started: the request offers no tools, like the raw one.
    const services = createServices({ dataDir, host: 'cli', version: 'bench', managedPolicyFile: null });
    services.providers.add({ kind: 'openai', id: 'fake', label: 'Fake', baseURL, apiKey: KEY, defaultModel: MODEL });
    const reply = { kind: 'reply' as const, text: ['Hello', ', world', '!'] };
    let firstText: (() => void) | undefined;
    services.events.subscribe((event, payload) => {
      if (event === 'chat.onDidStream' && (payload as { kind: string }).kind === 'text') firstText?.();
    });

    const viaLoop = async (): Promise<number> => {
      server.script(reply);
      const chat = services.chats.create({ providerId: 'fake' });
      let first = Number.NaN;
      const start = performance.now();
      firstText = () => {
        if (Number.isNaN(first)) first = performance.now() - start;
      };
      services.conversations.send(chat.id, { role: 'user', text: PROMPT });
      await services.conversations.settled(chat.id);
      firstText = undefined;
      return first;
    };
    const viaSdk = async (): Promise<number> => {
      server.script(reply);
      const start = performance.now();
      let first = Number.NaN;
      const stream = await raw.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content && Number.isNaN(first)) first = performance.now() - start;
      }
      return first;
    };

    try {
      const loopTimes: number[] = [];
      const sdkTimes: number[] = [];
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        let loop: number;
        let sdk: number;
        if (i % 2 === 0) {
          loop = await viaLoop();
          sdk = await viaSdk();
        } else {
          sdk = await viaSdk();
          loop = await viaLoop();
        }
        if (Number.isNaN(loop) || Number.isNaN(sdk)) throw new Error('A stream ended without a token.');
        if (i >= WARMUP) {
          loopTimes.push(loop);
          sdkTimes.push(sdk);
        }
      }
      const loopP50 = percentile(loopTimes, 50);
      const sdkP50 = percentile(sdkTimes, 50);
      return {
        value: loopP50 - sdkP50,
        unit: 'ms',
        goal: { op: '<=', value: 5 },
        details: {
          loopP50Ms: loopP50,
          sdkP50Ms: sdkP50,
          loopP99Ms: percentile(loopTimes, 99),
          sdkP99Ms: percentile(sdkTimes, 99),
          samples: SAMPLES,
        },
      };
    } finally {
      await services.conversations.dispose();
      services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await server.close();
    }
  },
};
